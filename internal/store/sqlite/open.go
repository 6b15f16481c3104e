// Package sqlite is the embedded Store backend: one file, WAL, migrations
// versioned in the code, the pure-Go modernc.org/sqlite driver (no C
// toolchain needed).
//
// Writes go through one connection (SQLite has one writer anyway; queueing
// them in database/sql rather than in busy loops keeps them fair), reads
// through a small pool that WAL lets run beside the writer. synchronous=FULL:
// a committed transaction survives kill -9 and power loss alike.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // the driver
)

// DB is the SQLite Store.
type DB struct {
	w *sql.DB // the one writer
	r *sql.DB // readers
}

// Open opens (creating if needed) the database file at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	if err := migrate(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	return &DB{w: w, r: r}, nil
}

// Close closes the database.
func (d *DB) Close() error {
	err := d.r.Close()
	if werr := d.w.Close(); err == nil {
		err = werr
	}
	return err
}

// tx runs fn in one write transaction.
func (d *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
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
