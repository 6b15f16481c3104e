package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"corpus.blog/corpusbot/internal/store"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestFaultClassification reads the fault in each kind of error the
// driver gives, the server's by their SQLSTATE.
func TestFaultClassification(t *testing.T) {
	pg := func(code string) error {
		return fmt.Errorf("save page 3: %w", &pgconn.PgError{Severity: "ERROR", Code: code, Message: "m"})
	}
	refused := connectRefused(t)
	cases := []struct {
		name string
		err  error
		want store.Fault
	}{
		{"disk full", pg("53100"), store.CannotWrite},
		{"read-only transaction", pg("25006"), store.CannotWrite},
		{"I/O error", pg("58030"), store.CannotWrite},
		{"data corrupted", pg("XX001"), store.CannotWrite},
		{"index corrupted", pg("XX002"), store.CannotWrite},
		{"administrator shutdown", pg("57P01"), store.Unavailable},
		{"crash shutdown", pg("57P02"), store.Unavailable},
		{"cannot connect now", pg("57P03"), store.Unavailable},
		{"too many connections", pg("53300"), store.Unavailable},
		{"connection failure", pg("08006"), store.Unavailable},
		{"connection does not exist", pg("08003"), store.Unavailable},
		{"connection refused", refused, store.Unavailable},
		{"connection refused, as Open says it", connectFailure(refused), store.Unavailable},
		{"conn closed", fmt.Errorf("query: %w", pgconn.ErrConnClosed), store.Unavailable},
		{"broken mid-answer", fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), store.Unavailable},
		{"network", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("reset")}, store.Unavailable},
		{"unique violation", pg("23505"), store.NoFault},
		{"serialization failure", pg("40001"), store.NoFault},
		{"syntax", pg("42601"), store.NoFault},
		{"wrong password", fmt.Errorf("connect: %w", &pgconn.PgError{Severity: "FATAL", Code: "28P01"}), store.NoFault},
		{"query canceled", pg("57014"), store.NoFault},
		{"not the driver's", errors.New("something else"), store.NoFault},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, cause := fault(c.err)
			if got != c.want {
				t.Errorf("fault(%v) = %v, want %v", c.err, got, c.want)
			}
			if got != store.NoFault && cause == nil {
				t.Errorf("fault(%v) gives no cause", c.err)
			}
		})
	}
	if w := Where("postgres://user:secret@db.example:5433/corpus?sslmode=disable"); w != "db.example:5433/corpus" {
		t.Errorf("Where = %q", w)
	}
}

// connectRefused is pgx's error for a server that refuses the connection:
// a loopback port nothing listens on.
func connectRefused(t *testing.T) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db, err := OpenDB("postgres://u@" + addr + "/x?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.PingContext(context.Background())
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("ping of a closed port: %T %v", err, err)
	}
	return err
}
