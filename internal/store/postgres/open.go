// Package postgres is the Store backend for many worker processes on many
// machines sharing one PostgreSQL database: the same schema and the same
// transactions as the SQLite backend (so a worker killed at any moment
// leaves all of a change or none of it), migrations versioned in the code
// and applied under an advisory lock (so N workers starting at once migrate
// once), and the cluster-wide site lease (Lease) that keeps one request in
// flight per site across every worker.
//
// It speaks database/sql through github.com/jackc/pgx/v5/stdlib, so its
// queries are the SQLite backend's with $n placeholders. Open takes a
// postgres:// or postgresql:// URL; extra parameters such as search_path
// are passed to the server (the tests give every test its own schema).
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// DB is the PostgreSQL Store.
type DB struct {
	db *sql.DB
	// w and r are the same pool: the SQLite backend's names, kept so the
	// two backends' query code reads alike.
	w, r   *sql.DB
	claims *claims
}

// IsDSN reports whether dsn names a PostgreSQL database.
func IsDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects to the database at dsn and brings its schema up to date.
func Open(ctx context.Context, dsn string) (*DB, error) {
	db, err := OpenDB(dsn)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return &DB{db: db, w: db, r: db, claims: defaultClaims()}, nil
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

// Close closes the pool.
func (d *DB) Close() error { return d.db.Close() }

// tx runs fn in one transaction, again from the start when PostgreSQL
// aborts it as a deadlock or a serialization failure (two workers adding
// the same posts in different orders).
func (d *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := d.tx1(ctx, fn)
		if err == nil || attempt >= 4 || !retryable(err) {
			return err
		}
	}
}

func (d *DB) tx1(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := d.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

var _ = stdlib.GetDefaultDriver // registers the "pgx" driver
