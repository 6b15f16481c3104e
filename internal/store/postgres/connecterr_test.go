package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A server that cannot be reached is said once: pgx tries the address
// with TLS and then without (sslmode=prefer, the default) and joins both
// errors, which said the same thing twice after "migrate:".
func TestOpenUnreachableSaysItOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port nothing listens on: connection refused
	for _, mode := range []string{"", "?sslmode=prefer", "?sslmode=disable"} {
		_, err := Open(context.Background(), "postgres://u:p@"+addr+"/x"+mode)
		if err == nil {
			t.Fatalf("%q: opened", mode)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "cannot connect to PostgreSQL (user u, database x): ") || strings.Contains(msg, "migrate") {
			t.Errorf("%q: %s", mode, msg)
		}
		if n := strings.Count(msg, "connection refused"); n != 1 {
			t.Errorf("%q: the reason is said %d times: %s", mode, n, msg)
		}
		var ce *pgconn.ConnectError
		if !errors.As(err, &ce) {
			t.Errorf("%q: pgx's error is not kept: %T", mode, err)
		}
	}
}

// An error that is not a failure to connect is left as it is (Open says
// "migrate:" before it).
func TestConnectFailureOnlyForConnecting(t *testing.T) {
	for _, err := range []error{errors.New("syntax error"), fmt.Errorf("lock: %w", errors.New("deadlock"))} {
		if got := connectFailure(err); got != nil {
			t.Errorf("%v: %v", err, got)
		}
	}
}
