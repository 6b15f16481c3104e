package postgres

import (
	"errors"
	"io"
	"net"
	"net/url"
	"strings"

	"corpus.blog/corpusbot/internal/store"

	"github.com/jackc/pgx/v5/pgconn"
)

// cannotWrite are the SQLSTATEs that say the server cannot store a write
// until its operator acts: disk_full, read_only_sql_transaction (a standby,
// or default_transaction_read_only), io_error, data_corrupted and
// index_corrupted.
var cannotWrite = map[string]bool{"53100": true, "25006": true, "58030": true, "XX001": true, "XX002": true}

// unavailable are the SQLSTATEs that say "try later": admin_shutdown (a
// restart's fast stop), crash_shutdown, cannot_connect_now (starting up or
// shutting down) and too_many_connections; class 08, the connection
// exceptions, is read apart.
var unavailable = map[string]bool{"57P01": true, "57P02": true, "57P03": true, "53300": true}

// fault is the PostgreSQL dialect's reading of its driver's errors
// (store.Dialect.Fault). An error the server sent decides by its SQLSTATE
// alone, inside a failed connection attempt too: a wrong password (28P01)
// or a missing database (3D000) fails the command at once, since waiting
// mends neither. A connection attempt that reached no server (refused,
// reset, unresolved), a connection pgx has closed under us and one that
// broke mid-answer are "try later".
func fault(err error) (store.Fault, error) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case cannotWrite[pe.Code]:
			return store.CannotWrite, pe
		case unavailable[pe.Code] || strings.HasPrefix(pe.Code, "08"):
			return store.Unavailable, pe
		}
		return store.NoFault, nil
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return store.Unavailable, err
	}
	var ne net.Error
	switch {
	case errors.Is(err, pgconn.ErrConnClosed):
		return store.Unavailable, pgconn.ErrConnClosed
	case errors.Is(err, io.ErrUnexpectedEOF):
		return store.Unavailable, err
	case errors.As(err, &ne):
		return store.Unavailable, ne
	}
	return store.NoFault, nil
}

// Where names the database dsn opens for an operator's message:
// host:port/database, never the user or password.
func Where(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		return "postgres"
	}
	return u.Host + u.Path
}
