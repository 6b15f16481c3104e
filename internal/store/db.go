// The SQL both backends share: every query, transaction and work checkout
// is written once, in PostgreSQL's $n placeholder syntax, and rewritten per
// Dialect. The backends (store/sqlite and store/postgres) own only what
// truly differs: opening the connection, the schema's DDL and its
// migration, and, for PostgreSQL, the cluster's site leases and robots
// cache. Both run the same storetest suites.

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"corpus.blog/corpusbot/internal/logging"
)

// Dialect is what differs between the SQL databases behind a DB.
type Dialect struct {
	// Name is the backend's name, for errors.
	Name string
	// QuestionPlaceholders rewrites $n as ?n (SQLite; the same numbering,
	// so a reused argument stays one argument).
	QuestionPlaceholders bool
	// CacheStatements keeps each query prepared (statements.go).
	CacheStatements bool
	// BytewiseText: text compares byte by byte (SQLite's BINARY
	// collation), so that a range of text is a prefix, found through an
	// index (PostgreSQL's compares by the locale's collation).
	BytewiseText bool
	// Retryable reports a transaction the database aborted to resolve a
	// conflict (a deadlock, a serialization failure), which is run again
	// from the start; nil: none is.
	Retryable func(error) bool
	// GroupCommit sends every write through one goroutine that commits
	// all the writes waiting at once in one transaction (see group.go):
	// SQLite, whose one writer makes every commit wait for the last one's
	// fsync. Off, every write is its own transaction and they run
	// concurrently (PostgreSQL).
	GroupCommit bool
	// LocalWorkers: every worker is a process on this machine (SQLite),
	// so the checkouts of one that ended are given back at once
	// (ReleaseDeadWorkers) rather than left to lapse.
	LocalWorkers bool
	// Changes reads the change stamps of post records (records.go).
	Changes Changes
	// Fault says which of the store's faults (faults.go) err is, if one
	// this backend's driver reports, and the error that says so; nil or
	// NoFault: the generic reading (a broken connection) decides.
	Fault func(err error) (Fault, error)
}

// DB is the shared Store over database/sql.
type DB struct {
	w writer // single-statement writes; the others are DB.tx's
	r conn   // reads (the writer's pool too on PostgreSQL)
	// lookup is r for the point reads the fetcher and the crawler make for
	// every request (a site's opt-out, refusals and robots state, a
	// source): microseconds each, so not cut off when the caller's context
	// ends: database/sql and the SQLite driver would each start a goroutine
	// to watch a cancellable context, for a read that takes microseconds.
	lookup    conn
	wdb       *sql.DB
	group     *groupCommit // the one writer (Dialect.GroupCommit); nil: none
	closers   []func() error
	dialect   *Dialect
	checkouts *checkouts
	queries   sync.Map                    // query as written -> as sent
	log       atomic.Pointer[slog.Logger] // SetLogger's, or slog.Default
	stop      chan struct{}
	done      chan struct{}
	// closeOnce: a second Close is an error, not a panic.
	closeOnce sync.Once
	stmts     statements
	writeTime writeTimer // SetWriteObserver's
	health    health     // the faults met (faults.go); the zero value is healthy
}

// New returns the Store over the writer and reader pools (they may be the
// same) with work checked out as owner ("": a name unique to this process)
// until ttl (0: DefaultCheckoutTTL) passes, renewed while the DB is open.
// Close gives back the checkouts and closes both pools.
func New(w, r *sql.DB, d Dialect, owner string, ttl time.Duration, log *slog.Logger) *DB {
	db := &DB{wdb: w, dialect: &d, checkouts: newCheckouts(owner, ttl), stop: make(chan struct{}), done: make(chan struct{})}
	db.log.Store(logging.OrDefault(log))
	db.w, db.r = writer{db}, conn{x: r, db: db, pool: r}
	db.lookup = conn{x: r, db: db, pool: r, uncancelled: true}
	if d.GroupCommit {
		db.group = newGroupCommit(db)
	}
	go func() {
		defer close(db.done)
		db.renewCheckouts(db.stop)
	}()
	db.closers = append(db.closers, r.Close)
	if r != w {
		db.closers = append(db.closers, w.Close)
	}
	return db
}

// SetLogger has the store log to l (nil: slog.Default) from now on: the
// backends open it before the command's logger is known.
func (d *DB) SetLogger(l *slog.Logger) { d.log.Store(logging.OrDefault(l)) }

func (d *DB) logger() *slog.Logger { return d.log.Load() }

// Close gives back this owner's checkouts, waits for the writes under way and
// closes the pools; a write asked for after Close fails.
func (d *DB) Close() error {
	first := errors.New("already closed")
	d.closeOnce.Do(func() { first = d.close() })
	return first
}

func (d *DB) close() error {
	close(d.stop)
	<-d.done
	d.releaseCheckouts()
	if d.group != nil {
		d.group.close()
	}
	d.stmts.close()
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

// tx runs fn as one write: all of it or none of it is stored, and it
// returns once fn's changes are committed (a read that follows sees them).
// Every write goes through here, or through d.w for one statement. With
// GroupCommit, fn runs once, on the one writer goroutine, in its own
// savepoint of a transaction shared with the other writes waiting (see
// group.go); its statements are not cut off when ctx ends once fn has
// started, since a statement interrupted would roll back the whole
// transaction, the others' writes too. Without, fn runs in a transaction
// of its own, again from the start when the database aborted it to
// resolve a conflict (two workers adding the same posts in different
// orders): fn must start from scratch each time.
func (d *DB) tx(ctx context.Context, fn func(conn) error) error {
	defer d.writeTime.timed(WriteTx, time.Now())
	return d.failedWrite(d.tx0(ctx, fn))
}

// tx0 is tx, untimed.
func (d *DB) tx0(ctx context.Context, fn func(conn) error) error {
	if d.group != nil {
		return d.group.run(ctx, fn)
	}
	for attempt := 0; ; attempt++ {
		err := d.tx1(ctx, fn)
		if err == nil || attempt >= 4 || d.dialect.Retryable == nil || !d.dialect.Retryable(err) {
			return err
		}
	}
}

// txAlone is tx for a write too big to share a transaction with others
// (a chunk of a large sitemap read): with GroupCommit it runs in a
// transaction of its own, between the group's batches and with no
// savepoint (group.go, runAlone); without, as tx. With GroupCommit its
// statements are not cut off when ctx ends, so fn checks ctx between them;
// either way, its failure rolls back its own work alone.
func (d *DB) txAlone(ctx context.Context, fn func(conn) error) error {
	defer d.writeTime.timed(WriteTxAlone, time.Now())
	if d.group != nil {
		return d.failedWrite(d.group.runAlone(ctx, fn))
	}
	return d.failedWrite(d.tx0(ctx, fn))
}

// writer is d.w: ExecContext runs one statement as a write of its own.
// A write of several statements, or one that reads, is a DB.tx.
type writer struct{ db *DB }

// ExecContext runs the statement q as one write (see DB.tx); without
// GroupCommit it is sent alone, as its own transaction.
func (w writer) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	defer w.db.writeTime.timed(WriteExec, time.Now())
	if w.db.group == nil {
		res, err := conn{x: w.db.wdb, db: w.db, pool: w.db.wdb}.ExecContext(ctx, q, args...)
		return res, w.db.failedWrite(err)
	}
	var res sql.Result
	err := w.db.group.run(ctx, func(tx conn) error {
		var err error
		res, err = tx.ExecContext(ctx, q, args...)
		return err
	})
	return res, w.db.failedWrite(err)
}

func (d *DB) tx1(ctx context.Context, fn func(conn) error) error {
	tx, err := d.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(conn{x: tx, db: d, pool: d.wdb, tx: tx}); err != nil {
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
	// uncancelled: the statements ignore the end of their context (a
	// write of a group commit, see DB.tx).
	uncancelled bool
	// pool is the pool x belongs to and tx the transaction x is, if any:
	// with CacheStatements, queries run as statements prepared once on
	// pool (statements.go).
	pool *sql.DB
	tx   *sql.Tx
}

// ctx is the context a statement runs under.
func (c conn) ctx(ctx context.Context) context.Context {
	if c.uncancelled {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// The statements' errors pass through DB.noted, so that a fault of the
// database met by any query, a read too, is the store's health at once.

func (c conn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s := c.statement(ctx, q); s != nil {
		res, err := s.ExecContext(c.ctx(ctx), args...)
		return res, c.db.noted(err)
	}
	res, err := c.x.ExecContext(c.ctx(ctx), c.db.rebind(q), args...)
	return res, c.db.noted(err)
}

func (c conn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s := c.statement(ctx, q); s != nil {
		rows, err := s.QueryContext(c.ctx(ctx), args...)
		return rows, c.db.noted(err)
	}
	rows, err := c.x.QueryContext(c.ctx(ctx), c.db.rebind(q), args...)
	return rows, c.db.noted(err)
}

// QueryRowContext's error reaches its caller through Scan, unwrapped; it
// is noted here all the same (Row.Err is the query's error, before Scan).
func (c conn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	var row *sql.Row
	if s := c.statement(ctx, q); s != nil {
		row = s.QueryRowContext(c.ctx(ctx), args...)
	} else {
		row = c.x.QueryRowContext(c.ctx(ctx), c.db.rebind(q), args...)
	}
	if err := row.Err(); err != nil {
		c.db.noted(err)
	}
	return row
}

// PrepareContext prepares q for a loop of calls; with CacheStatements it
// is the statement kept (statements.go), not prepared again.
func (c conn) PrepareContext(ctx context.Context, q string) (stmt, error) {
	if s := c.statement(ctx, q); s != nil {
		return stmt{s: s, c: c, kept: c.tx == nil}, nil
	}
	s, err := c.x.PrepareContext(c.ctx(ctx), c.db.rebind(q))
	return stmt{s: s, c: c}, err
}

// stmt is a prepared statement of a conn, run under the conn's contexts.
type stmt struct {
	s *sql.Stmt
	c conn
	// kept: s is the DB's own kept statement, which Close leaves open (a
	// transaction's copy of one closes alone).
	kept bool
}

func (s stmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return s.s.ExecContext(s.c.ctx(ctx), args...)
}

func (s stmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return s.s.QueryRowContext(s.c.ctx(ctx), args...)
}

func (s stmt) Close() error {
	if s.kept {
		return nil
	}
	return s.s.Close()
}

// Writer is the writer pool, for what the shared queries do not cover (a
// backend's own tables, bulk loads in benchmarks).
func (d *DB) Writer() *sql.DB { return d.wdb }

// Ping reports whether the database answers a query now (the health
// check's question).
func (d *DB) Ping(ctx context.Context) error {
	var one int
	if err := d.r.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("%s database: %w", d.dialect.Name, err)
	}
	return nil
}
