package fetch_test

import (
	"errors"
	"io"
	"net"

	"corpus.blog/corpusbot/internal/fetch"
)

func asDisallowed(err error, de **fetch.DisallowedError) bool { return errors.As(err, de) }

func isErr(err, target error) bool { return errors.Is(err, target) }

type netConn = net.Conn

func readAll(r io.Reader) ([]byte, error) { return io.ReadAll(r) }
