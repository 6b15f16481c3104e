package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Group commit (Dialect.GroupCommit). SQLite has one writer, and with
// synchronous=FULL every commit waits for an fsync: one transaction per
// write caps a process at a few hundred writes a second however many
// sites it works on, each write queued behind every other's fsync. So one
// goroutine takes every write waiting, runs each in its own savepoint of
// one transaction, commits once and then answers them all: the fsync is
// shared, and a write waits for at most the batch under way and its own.
// Each caller still returns only after its write is committed, so a
// committed write survives power loss as before, and a write that fails is
// rolled back to its savepoint alone.

// maxGroup bounds the writes of one transaction, and so its size and the
// wait of the batch's first caller.
const maxGroup = 1000

// errClosed answers a write asked for after Close.
var errClosed = errors.New("store closed")

// groupCommit is a DB's one writer goroutine and the writes waiting for it.
type groupCommit struct {
	db      *DB
	mu      sync.Mutex
	waiting []*writeCall
	closed  bool
	wake    chan struct{} // capacity 1: something was queued, or closed
	done    chan struct{} // closed when the goroutine has stopped
	// batches counts the transactions begun, for the tests.
	batches atomic.Int64
}

// writeCall is one write waiting for, or answered by, the writer.
type writeCall struct {
	ctx context.Context
	fn  func(conn) error
	// state moves once, from waiting to taken (by the writer, which then
	// answers) or to withdrawn (by the caller, whose context ended first).
	state    atomic.Int32
	err      error
	panicked any // what fn panicked with, panicked again in the caller
	answered chan struct{}
}

const (
	callWaiting = iota
	callTaken
	callWithdrawn
)

func newGroupCommit(db *DB) *groupCommit {
	g := &groupCommit{db: db, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go g.loop()
	return g
}

// run queues fn and waits for its answer. A caller whose context ends
// before the writer takes its write gets ctx.Err() and fn never runs; once
// taken, the write is committed or fails on its own merits, and run
// returns only then.
func (g *groupCommit) run(ctx context.Context, fn func(conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := &writeCall{ctx: ctx, fn: fn, answered: make(chan struct{})}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return errClosed
	}
	g.waiting = append(g.waiting, c)
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
	select {
	case <-c.answered:
	case <-ctx.Done():
		if c.state.CompareAndSwap(callWaiting, callWithdrawn) {
			return ctx.Err()
		}
		<-c.answered // taken already: it runs to its end
	}
	if c.panicked != nil {
		panic(c.panicked)
	}
	return c.err
}

// close lets the writer finish every write queued, then stops it; later
// writes fail with errClosed.
func (g *groupCommit) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
	<-g.done
}

func (g *groupCommit) loop() {
	defer close(g.done)
	for range g.wake {
		for {
			g.mu.Lock()
			n := min(len(g.waiting), maxGroup)
			batch := g.waiting[:n]
			g.waiting = slices.Clone(g.waiting[n:])
			closed := g.closed
			g.mu.Unlock()
			if n == 0 {
				if closed {
					return
				}
				break
			}
			g.commit(batch)
		}
	}
}

// commit runs the batch's writes in one transaction and answers each.
func (g *groupCommit) commit(batch []*writeCall) {
	var todo []*writeCall
	for _, c := range batch {
		if !c.state.CompareAndSwap(callWaiting, callTaken) {
			continue // withdrawn by its caller
		}
		if err := c.ctx.Err(); err != nil {
			c.answer(err)
			continue
		}
		todo = append(todo, c)
	}
	if len(todo) == 0 {
		return
	}
	g.batches.Add(1)
	// Not the callers' contexts: one ending must not roll back the others.
	tx, err := g.db.wdb.BeginTx(context.Background(), nil)
	if err != nil {
		for _, c := range todo {
			c.answer(fmt.Errorf("begin: %w", err))
		}
		return
	}
	x := conn{x: tx, db: g.db, uncancelled: true, pool: g.db.wdb, tx: tx}
	for i, c := range todo {
		if err := g.one(tx, x, c); err != nil {
			// The transaction itself is lost (SQLite rolls back the whole
			// of it on a full disk or an I/O error): nothing of the batch
			// is stored, and the writes not run yet are not tried.
			tx.Rollback()
			lost := fmt.Errorf("write batch lost: %w", err)
			for _, c := range todo[:i+1] {
				if c.err == nil && c.panicked == nil {
					c.err = lost
				}
			}
			for _, c := range todo[i+1:] {
				c.err = lost
			}
			g.answerAll(todo)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		for _, c := range todo {
			if c.err == nil && c.panicked == nil {
				c.err = fmt.Errorf("commit: %w", err)
			}
		}
	}
	g.answerAll(todo)
}

// one runs c's write in a savepoint of tx, rolled back to it when the
// write fails; the error returned is the transaction's, not the write's.
func (g *groupCommit) one(tx *sql.Tx, x conn, c *writeCall) error {
	if _, err := tx.Exec(`SAVEPOINT w`); err != nil {
		return err
	}
	c.panicked, c.err = call(c.fn, x)
	if c.err != nil || c.panicked != nil {
		if _, err := tx.Exec(`ROLLBACK TO w`); err != nil {
			return err
		}
	}
	_, err := tx.Exec(`RELEASE w`)
	return err
}

// call runs fn, turning a panic into a value to panic with in the caller.
func call(fn func(conn) error, x conn) (panicked any, err error) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	return nil, fn(x)
}

func (g *groupCommit) answerAll(calls []*writeCall) {
	for _, c := range calls {
		close(c.answered)
	}
}

func (c *writeCall) answer(err error) {
	c.err = err
	close(c.answered)
}
