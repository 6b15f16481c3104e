package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
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
//
// A commit costs the same whether it carries one write or a hundred (its
// WAL frames, its fsync, BEGIN and COMMIT): over 2,000 simulated sites a
// commit took about 0.5 ms of CPU, as much as the writes in it. A crawler
// working on thousands of sites asks for a write every fraction of a
// millisecond, but each site's writes come one at a time, so without help
// most commits would carry one write. So, as PostgreSQL's commit_delay
// does when other transactions are under way, the writer waits up to
// commitDelay before a commit for more writes to join it — but only while
// writes are contended (some arrived during the last commit, or the last
// wait gathered some): a lone writer, a test or a small crawl, never
// waits. A crawler's site waits at least a second between requests, so a
// few milliseconds more per write cost it nothing. 15 ms: over 2,000
// simulated sites it gathered 27 writes a commit on the first day and 24
// on the second, against 12 and 14 at 5 ms, for 4–15% more requests per
// CPU-second and no simulated time lost.
//
// A write too big to share a transaction (runAlone: a chunk of a large
// sitemap read) is not put in a savepoint. SQLite copies into a savepoint's
// sub-journal every page it changes that an earlier write of the
// transaction had changed already, and truncates that journal after each of
// its statements by walking it from the start: two sitemaps of 38,000 long
// URLs in one batch grew the second's journal (in memory, temp_store) until
// the process held 1.2 GiB, and walked each of its 100,000-odd statements
// through it, for minutes, with every other write waiting. So
// such a write runs in a transaction of its own, between batches, in the
// order it was queued, and its caller keeps it small; what still runs in a
// savepoint is small too (a sitemap read of at most store.SitemapChunk
// entries, a page of a feed).

// maxGroup bounds the writes of one transaction, and so its size and the
// wait of the batch's first caller.
const maxGroup = 1000

// commitDelay is the longest the writer waits for more writes to join a
// contended commit.
const commitDelay = 15 * time.Millisecond

// CommitClock is a simulated clock as the group commit uses it
// (simweb.EventClock): each caller waiting for its write's commit is
// counted as waiting on something outside the clock for up to the commit
// delay (Await), so that other sites work meanwhile as they would in real
// time, and the writer's commit delay ends as soon as the delay has passed
// on the clock, which moves faster than real time when the sites have
// little to do.
type CommitClock interface {
	Await(d time.Duration) (done func())
	Now() time.Time
}

// SetCommitClock makes the group commit keep its time on c. Call it before
// the first write; without a group commit it does nothing.
func (db *DB) SetCommitClock(c CommitClock) {
	if db.group != nil {
		db.group.clock.Store(&c)
	}
}

// errClosed answers a write asked for after Close.
var errClosed = errors.New("store closed")

// groupCommit is a DB's one writer goroutine and the writes waiting for it.
type groupCommit struct {
	db      *DB
	clock   atomic.Pointer[CommitClock] // SetCommitClock's; nil: real time
	mu      sync.Mutex
	waiting []*writeCall
	closed  bool
	// contended: writes arrived while the last commit ran, or the last
	// wait before a commit gathered some; only then does the next wait.
	contended bool
	wake      chan struct{} // capacity 1: something was queued, or closed
	done      chan struct{} // closed when the goroutine has stopped
	// batches counts the transactions begun and writes the writes run in
	// them, for the tests and the benchmarks (GroupStats); delays counts
	// the commit delays waited.
	batches, writes, delays atomic.Int64
}

// GroupStats is what the group commit has done since the store opened.
type GroupStats struct {
	Batches int64 // transactions committed (or tried)
	Writes  int64 // writes run in them
	Delays  int64 // commit delays waited, for more writes to join
}

// GroupStats reports the group commit's transactions and writes so far;
// zero without a group commit (Dialect.GroupCommit false).
func (db *DB) GroupStats() GroupStats {
	if db.group == nil {
		return GroupStats{}
	}
	g := db.group
	return GroupStats{Batches: g.batches.Load(), Writes: g.writes.Load(), Delays: g.delays.Load()}
}

// writeCall is one write waiting for, or answered by, the writer.
type writeCall struct {
	ctx context.Context
	fn  func(conn) error
	// alone: run in a transaction of its own, with no savepoint (runAlone).
	alone bool
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
	return g.queue(ctx, &writeCall{ctx: ctx, fn: fn, answered: make(chan struct{})})
}

// runAlone is run for a write that must not share a transaction: it is
// committed in one of its own, after the writes queued before it and
// before those queued after, with no savepoint around it (see above). fn
// should check ctx between its statements, which are not cut off: its
// caller's end ends it early, and an error rolls back fn's work alone.
func (g *groupCommit) runAlone(ctx context.Context, fn func(conn) error) error {
	return g.queue(ctx, &writeCall{ctx: ctx, fn: fn, alone: true, answered: make(chan struct{})})
}

// queue hands c to the writer and waits for its answer (run).
func (g *groupCommit) queue(ctx context.Context, c *writeCall) error {
	if err := ctx.Err(); err != nil {
		return err
	}
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
	if clock := g.clock.Load(); clock != nil {
		defer (*clock).Await(commitDelay)()
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
			if g.contended && !g.closed && len(g.waiting) > 0 && len(g.waiting) < maxGroup && !g.waiting[0].alone {
				before := len(g.waiting)
				g.mu.Unlock()
				g.delays.Add(1)
				g.sleep(commitDelay)
				g.mu.Lock()
				g.contended = len(g.waiting) > before
			}
			n := g.batchLen()
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

// batchLen is how many of the writes waiting the next transaction takes:
// up to maxGroup, stopping short of the first that runs alone, or that one
// write alone. g.mu is held.
func (g *groupCommit) batchLen() int {
	n := min(len(g.waiting), maxGroup)
	for i, c := range g.waiting[:n] {
		switch {
		case c.alone && i == 0:
			return 1
		case c.alone:
			return i
		}
	}
	return n
}

// sleep waits d, or, with a commit clock, until d has passed on it if
// that is sooner. The writer is not one of the clock's goroutines, so it
// watches the clock rather than sleeping on it (a sleeper would count as
// one more goroutine asleep beside the waiters who already are).
func (g *groupCommit) sleep(d time.Duration) {
	clock := g.clock.Load()
	if clock == nil {
		time.Sleep(d)
		return
	}
	until := (*clock).Now().Add(d)
	for deadline := time.Now().Add(d); time.Now().Before(deadline) && (*clock).Now().Before(until); {
		time.Sleep(d / 20)
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
	if todo[0].alone { // batchLen gave it a batch of its own
		g.commitAlone(todo[0])
		return
	}
	g.batches.Add(1)
	g.writes.Add(int64(len(todo)))
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
		if err := g.one(x, c); err != nil {
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
	// Before the answers: a write queued now is another caller's, not the
	// next write of a caller just answered.
	g.mu.Lock()
	g.contended = g.contended || len(g.waiting) > 0
	g.mu.Unlock()
	g.answerAll(todo)
}

// commitAlone runs c's write in a transaction of its own, with no
// savepoint: rolled back if it fails, committed otherwise.
func (g *groupCommit) commitAlone(c *writeCall) {
	g.batches.Add(1)
	g.writes.Add(1)
	defer func() {
		g.mu.Lock()
		g.contended = g.contended || len(g.waiting) > 0
		g.mu.Unlock()
		close(c.answered)
	}()
	ctx := context.Background()
	cn, err := g.db.wdb.Conn(ctx)
	if err != nil {
		c.err = fmt.Errorf("begin: %w", err)
		return
	}
	defer cn.Close()
	tx, err := cn.BeginTx(ctx, nil)
	if err != nil {
		c.err = fmt.Errorf("begin: %w", err)
		return
	}
	c.panicked, c.err = call(c.fn, conn{x: tx, db: g.db, uncancelled: true, pool: g.db.wdb, tx: tx})
	if c.err != nil || c.panicked != nil {
		tx.Rollback()
		return
	}
	if err := tx.Commit(); err != nil {
		c.err = fmt.Errorf("commit: %w", err)
		return
	}
	// A write this big filled the connection's page cache with pages the
	// crawl's small writes will not want soon (a large sitemap's new posts):
	// they are let go at once, so that a large read costs memory by its
	// chunk, not by the cache's whole size (SQLite's shrink_memory; no
	// effect where the backend has no such pragma, which runs no alone
	// writes: only GroupCommit does).
	if _, err := cn.ExecContext(ctx, `PRAGMA shrink_memory`); err != nil {
		g.db.logger().Debug("page cache not shrunk after a large write", "err", err)
	}
}

// one runs c's write in a savepoint of tx, rolled back to it when the
// write fails; the error returned is the transaction's, not the write's.
func (g *groupCommit) one(x conn, c *writeCall) error {
	// Through x, so that these too are statements prepared once.
	ctx := context.Background()
	if _, err := x.ExecContext(ctx, `SAVEPOINT w`); err != nil {
		return err
	}
	c.panicked, c.err = call(c.fn, x)
	if c.err != nil || c.panicked != nil {
		if _, err := x.ExecContext(ctx, `ROLLBACK TO w`); err != nil {
			return err
		}
	}
	_, err := x.ExecContext(ctx, `RELEASE w`)
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
