// Package sqlstore is the store.Store both SQL backends share: every query,
// transaction and work claim, written once in PostgreSQL's $n placeholder
// syntax and rewritten per Dialect. The backends (store/sqlite and
// store/postgres) own only what truly differs: opening the connection, the
// schema's DDL and its migration, and, for PostgreSQL, the cluster's site
// leases and robots cache. Both run the same storetest suites.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Dialect is what differs between the SQL databases behind a DB.
type Dialect struct {
	// Name is the backend's name, for errors.
	Name string
	// QuestionPlaceholders rewrites $n as ?n (SQLite; the same numbering,
	// so a reused argument stays one argument).
	QuestionPlaceholders bool
	// SkipLocked ends the row choice of a work claim: "FOR UPDATE SKIP
	// LOCKED" on PostgreSQL, so that concurrent claimers take disjoint
	// rows without waiting; empty on SQLite, whose one writer already
	// serialises claims.
	SkipLocked string
	// Retryable reports a transaction the database aborted to resolve a
	// conflict (a deadlock, a serialization failure), which is run again
	// from the start; nil: none is.
	Retryable func(error) bool
}

// DB is the shared Store over database/sql.
type DB struct {
	w, r    conn // writes and reads (the same pool on PostgreSQL)
	wdb     *sql.DB
	closers []func() error
	dialect *Dialect
	claims  *claims
	queries sync.Map // query as written -> as sent
	log     *slog.Logger
	stop    chan struct{}
	done    chan struct{}
	// closeOnce: a second Close is an error, not a panic.
	closeOnce sync.Once
}

// New returns the Store over the writer and reader pools (they may be the
// same) with claims made as owner ("": a name unique to this process)
// until ttl (0: DefaultClaimTTL) passes, renewed while the DB is open.
// Close releases the claims and closes both pools.
func New(w, r *sql.DB, d Dialect, owner string, ttl time.Duration, log *slog.Logger) *DB {
	if log == nil {
		log = slog.Default()
	}
	db := &DB{wdb: w, dialect: &d, claims: newClaims(owner, ttl), log: log, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(db.done)
		db.renewClaims(db.stop)
	}()
	db.w, db.r = conn{w, db}, conn{r, db}
	db.closers = append(db.closers, r.Close)
	if r != w {
		db.closers = append(db.closers, w.Close)
	}
	return db
}

// Close releases this owner's claims and closes the pools.
func (d *DB) Close() error {
	first := errors.New("already closed")
	d.closeOnce.Do(func() { first = d.close() })
	return first
}

func (d *DB) close() error {
	close(d.stop)
	<-d.done
	d.releaseClaims()
	var first error
	for _, c := range d.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// rebind is q as this database wants it.
func (d *DB) rebind(q string) string {
	if !d.dialect.QuestionPlaceholders {
		return q
	}
	if v, ok := d.queries.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9' {
			b.WriteByte('?')
			continue
		}
		b.WriteByte(q[i])
	}
	d.queries.Store(q, b.String())
	return b.String()
}

// tx runs fn in one write transaction, again from the start when the
// database aborted it to resolve a conflict (two workers adding the same
// posts in different orders).
func (d *DB) tx(ctx context.Context, fn func(conn) error) error {
	for attempt := 0; ; attempt++ {
		err := d.tx1(ctx, fn)
		if err == nil || attempt >= 4 || d.dialect.Retryable == nil || !d.dialect.Retryable(err) {
			return err
		}
	}
}

func (d *DB) tx1(ctx context.Context, fn func(conn) error) error {
	tx, err := d.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(conn{tx, d}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// execer is what *sql.DB and *sql.Tx share.
type execer interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, q string) (*sql.Stmt, error)
}

// conn sends every query through rebind.
type conn struct {
	x  execer
	db *DB
}

func (c conn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return c.x.ExecContext(ctx, c.db.rebind(q), args...)
}

func (c conn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return c.x.QueryContext(ctx, c.db.rebind(q), args...)
}

func (c conn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return c.x.QueryRowContext(ctx, c.db.rebind(q), args...)
}

func (c conn) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	return c.x.PrepareContext(ctx, c.db.rebind(q))
}

// Writer is the writer pool, for what the shared queries do not cover (a
// backend's own tables, bulk loads in benchmarks).
func (d *DB) Writer() *sql.DB { return d.wdb }
