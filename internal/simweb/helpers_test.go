package simweb_test

import "net"

type netConn = net.Conn
