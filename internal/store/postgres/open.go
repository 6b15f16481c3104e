// Package postgres is the Store backend for many worker processes on many
// machines sharing one PostgreSQL database: the same schema and the same
// transactions as the SQLite backend (so a worker killed at any moment
// leaves all of a change or none of it), migrations versioned in the code
// and applied under an advisory lock (so N workers starting at once migrate
// once), and the cluster-wide site lease (Lease) that keeps one request in
// flight per site across every worker.
//
// It speaks database/sql through github.com/jackc/pgx/v5/stdlib; the
// queries are the store package's, shared with the SQLite backend. Open takes a
// postgres:// or postgresql:// URL; extra parameters such as search_path
// are passed to the server (the tests give every test its own schema).
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"corpus.blog/corpusbot/internal/store"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

var dialect = store.Dialect{
	Name: "postgres",
	Retryable: func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
	},
	Fault: fault,
	// Each change is stamped with its transaction's ID (migrate.go); a
	// cursor is a snapshot, and what changed after it is what it does
	// not see. Every stamp below the snapshot's xmin is seen, so the
	// index on the stamps reads only those at or above it.
	Changes: store.Changes{
		Cursor: `SELECT pg_current_snapshot()::text`,
		Valid:  validSnapshot,
		After: func(ph string) string {
			return `p.change_xid >= pg_snapshot_xmin(CAST(` + ph + ` AS pg_snapshot)) AND NOT pg_visible_in_snapshot(p.change_xid, CAST(` + ph + ` AS pg_snapshot))`
		},
	},
}

// validSnapshot reports whether s is a pg_snapshot as text: xmin:xmax:xip,…
// with xmin <= xmax, so that a cast never fails in the export's query.
func validSnapshot(s string) bool {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return false
	}
	xmin, err1 := strconv.ParseUint(parts[0], 10, 63)
	xmax, err2 := strconv.ParseUint(parts[1], 10, 63)
	if err1 != nil || err2 != nil || xmin == 0 || xmin > xmax {
		return false
	}
	if parts[2] == "" {
		return true
	}
	for _, x := range strings.Split(parts[2], ",") {
		v, err := strconv.ParseUint(x, 10, 63)
		if err != nil || v < xmin || v >= xmax {
			return false
		}
	}
	return true
}

// DB is the PostgreSQL Store: the shared queries, and the pool for the
// cluster's lease and robots cache.
type DB struct {
	*store.DB
	db *sql.DB
}

// IsDSN reports whether dsn names a PostgreSQL database.
func IsDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to the database at dsn and brings its schema up to date.
// Work is checked out under a name unique to this process (see SetCheckouts).
func Open(ctx context.Context, dsn string) (*DB, error) {
	db, err := OpenDB(dsn)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		if ce := connectFailure(err); ce != nil {
			return nil, ce // no migration was tried: the server was not reached
		}
		return nil, fmt.Errorf("migrate: %w", err)
	}
	d := &DB{DB: store.New(db, db, dialect, "", 0, nil), db: db}
	if err := d.Backfill(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// OpenDB opens a connection pool without migrating; Open is what a worker
// wants.
func OpenDB(dsn string) (*sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	return db, nil
}

// SQL is the connection pool, for the lease and for tests.
func (d *DB) SQL() *sql.DB { return d.db }

var _ = stdlib.GetDefaultDriver // registers the "pgx" driver
