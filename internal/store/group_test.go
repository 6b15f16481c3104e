package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver
)

// The group commit's own tests, on a bare SQLite file: a table kv, and the
// checkout tables the DB renews and releases. The store's behaviour through
// it is the storetest suites' (store/sqlite).

func openGroupDB(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "group.db")
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	ddl := []string{`CREATE TABLE kv(k TEXT PRIMARY KEY, v INTEGER NOT NULL)`}
	// The table the DB's checkout renewal writes to.
	ddl = append(ddl, `CREATE TABLE site_checkouts(site TEXT PRIMARY KEY, worker TEXT NOT NULL DEFAULT '', expires INTEGER NOT NULL DEFAULT 0)`)
	for _, q := range ddl {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	r.SetMaxOpenConns(4) // as store/sqlite has it
	d := New(w, r, Dialect{Name: "sqlite", QuestionPlaceholders: true, GroupCommit: true}, "test", 0,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { d.Close() })
	return d, path
}

// put stores key k in a write of its own.
func put(ctx context.Context, d *DB, k string) error {
	return d.tx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO kv(k, v) VALUES ($1, 1)`, k)
		return err
	})
}

// has reports whether k is stored, read through the reader pool: it sees
// committed writes only.
func has(t *testing.T, d *DB, k string) bool {
	t.Helper()
	var n int
	if err := d.r.QueryRowContext(context.Background(), `SELECT count(*) FROM kv WHERE k = $1`, k).Scan(&n); err != nil {
		t.Error(err)
	}
	return n == 1
}

// hold keeps the writer busy with a write of its own until release is
// called, so that the writes queued meanwhile make one batch.
func hold(d *DB) (release func()) {
	running, gate := make(chan struct{}), make(chan struct{})
	go d.tx(context.Background(), func(conn) error {
		close(running)
		<-gate
		return nil
	})
	<-running
	return func() { close(gate) }
}

// waitQueued waits until n writes wait for the writer.
func waitQueued(t *testing.T, d *DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		d.group.mu.Lock()
		k := len(d.group.waiting)
		d.group.mu.Unlock()
		if k >= n {
			return
		}
	}
	t.Fatalf("fewer than %d writes queued", n)
}

// Writers at once are committed together, and each sees its own write as
// soon as it returns.
func TestGroupCommitManyWriters(t *testing.T) {
	d, _ := openGroupDB(t)
	ctx := context.Background()
	const writers = 300
	before := d.group.batches.Load()
	release := hold(d)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			k := fmt.Sprint("held-", i)
			if err := put(ctx, d, k); err != nil {
				errs <- err
			} else if !has(t, d, k) {
				errs <- fmt.Errorf("%s not seen after its write returned", k)
			}
		})
	}
	waitQueued(t, d, writers)
	release()
	wg.Wait()
	if n := d.group.batches.Load() - before; n != 2 {
		t.Errorf("%d transactions for the held write and %d queued behind it, want 2", n, writers)
	}

	// Unheld: whatever the batches turn out to be, every write is seen.
	before = d.group.batches.Load()
	for i := range writers {
		wg.Go(func() {
			for j := range 5 {
				k := fmt.Sprint("free-", i, "-", j)
				if err := put(ctx, d, k); err != nil {
					errs <- err
				} else if !has(t, d, k) {
					errs <- fmt.Errorf("%s not seen after its write returned", k)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM kv`).Scan(&n); err != nil || n != writers*6 {
		t.Fatalf("%d rows (%v), want %d", n, err, writers*6)
	}
	t.Logf("%d writes in %d transactions", writers*5, d.group.batches.Load()-before)
}

// A write that fails, by its own error, a constraint or a panic, is rolled
// back alone: its batch-mates commit.
func TestGroupCommitFailureIsolated(t *testing.T) {
	d, _ := openGroupDB(t)
	ctx := context.Background()
	if err := put(ctx, d, "a"); err != nil {
		t.Fatal(err)
	}
	before := d.group.batches.Load()
	release := hold(d)
	errOwn := errors.New("b fails")
	writes := []func() error{
		func() error { return put(ctx, d, "x") },
		func() error {
			return d.tx(ctx, func(tx conn) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO kv(k, v) VALUES ('b', 1)`); err != nil {
					return err
				}
				return errOwn
			})
		},
		func() error { return put(ctx, d, "a") }, // the primary key refuses it
		func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panicked: %v", p)
				}
			}()
			return d.tx(ctx, func(tx conn) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO kv(k, v) VALUES ('p', 1)`); err != nil {
					return err
				}
				panic("p panics")
			})
		},
		func() error { return put(ctx, d, "y") },
	}
	got := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Go(func() { got[i] = w() })
		waitQueued(t, d, i+1) // in this order in the batch
	}
	release()
	wg.Wait()
	if got[0] != nil || got[4] != nil {
		t.Errorf("good writes failed: %v, %v", got[0], got[4])
	}
	if !errors.Is(got[1], errOwn) {
		t.Errorf("failing write got %v, want its own error", got[1])
	}
	if got[2] == nil {
		t.Error("duplicate key accepted")
	}
	if got[3] == nil || got[3].Error() != "panicked: p panics" {
		t.Errorf("panicking write got %v, want its panic again", got[3])
	}
	for k, want := range map[string]bool{"a": true, "x": true, "y": true, "b": false, "p": false} {
		if has(t, d, k) != want {
			t.Errorf("%s stored: %v, want %v", k, !want, want)
		}
	}
	if n := d.group.batches.Load() - before; n != 2 {
		t.Errorf("%d transactions, want 2 (the held write, then the five)", n)
	}
}

// A caller whose context ends before its write's turn gets ctx.Err() at
// once and nothing is written; a write that has started runs to its end.
func TestGroupCommitCancelled(t *testing.T) {
	d, _ := openGroupDB(t)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := put(gone, d, "early"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before the call: %v", err)
	}

	release := hold(d)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- put(ctx, d, "late") }()
	waitQueued(t, d, 1)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled while queued: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled caller waited for the writer")
	}

	// Started, then cancelled between its two statements: both are
	// committed, and so is its batch-mate.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	started := make(chan error, 1)
	go func() {
		started <- d.tx(ctx, func(tx conn) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO kv(k, v) VALUES ('s1', 1)`); err != nil {
				return err
			}
			cancel()
			_, err := tx.ExecContext(ctx, `INSERT INTO kv(k, v) VALUES ('s2', 1)`)
			return err
		})
	}()
	waitQueued(t, d, 2) // the withdrawn one is still in the queue
	mate := make(chan error, 1)
	go func() { mate <- put(context.Background(), d, "mate") }()
	waitQueued(t, d, 3)
	release()
	if err := <-started; err != nil {
		t.Errorf("started write: %v", err)
	}
	if err := <-mate; err != nil {
		t.Errorf("batch-mate: %v", err)
	}
	for k, want := range map[string]bool{"early": false, "late": false, "s1": true, "s2": true, "mate": true} {
		if has(t, d, k) != want {
			t.Errorf("%s stored: %v, want %v", k, !want, want)
		}
	}
}

// Close commits the writes queued before it, then refuses new ones.
func TestGroupCommitCloseDrains(t *testing.T) {
	d, path := openGroupDB(t)
	ctx := context.Background()
	release := hold(d)
	const queued = 20
	errs := make(chan error, queued)
	for i := range queued {
		go func() { errs <- put(ctx, d, fmt.Sprint("k", i)) }()
	}
	waitQueued(t, d, queued)
	closed := make(chan error, 1)
	go func() { closed <- d.Close() }()
	release()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	for range queued {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := put(ctx, d, "after"); !errors.Is(err, errClosed) {
		t.Errorf("write after Close: %v", err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM kv`).Scan(&n); err != nil || n != queued {
		t.Errorf("%d rows after Close (%v), want %d", n, err, queued)
	}
}

// The commit delay is waited only while writes are contended: a lone
// writer, one write after another, never waits; writes that queued behind
// a commit make the next commit wait for more, until a wait gathers none.
func TestGroupCommitDelaysOnlyWhenContended(t *testing.T) {
	d, _ := openGroupDB(t)
	ctx := context.Background()
	before := d.GroupStats()
	for i := range 30 {
		if err := put(ctx, d, fmt.Sprint("lone-", i)); err != nil {
			t.Fatal(err)
		}
	}
	lone := d.GroupStats()
	if n := lone.Delays - before.Delays; n != 0 {
		t.Errorf("a lone writer waited %d commit delays, want none", n)
	}
	if n := lone.Batches - before.Batches; n != 30 {
		t.Errorf("30 writes one after another in %d transactions, want 30", n)
	}

	// Ten writes queue behind a held one: contended.
	queueBehindHeld(t, d, 10)
	queued := d.GroupStats()
	if n := queued.Delays - lone.Delays; n < 1 {
		t.Errorf("writes queued behind a commit, and the next commit waited %d delays, want at least one", n)
	}
	if n := queued.Batches - lone.Batches; n != 2 {
		t.Errorf("the held write and the ten behind it in %d transactions, want 2", n)
	}

	// That wait gathered nothing more: alone again, no more delays.
	for i := range 10 {
		if err := put(ctx, d, fmt.Sprint("after-", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := d.GroupStats().Delays - queued.Delays; n != 0 {
		t.Errorf("a lone writer after the contention waited %d delays, want none", n)
	}
}

// A simulated clock (SetCommitClock) is told of each write's wait for its
// commit, bounded by the commit delay, and of its end; a contended
// commit's delay passes on it.
func TestGroupCommitKeepsTimeOnTheClock(t *testing.T) {
	d, _ := openGroupDB(t)
	ctx := context.Background()
	clock := &countingClock{}
	d.SetCommitClock(clock)
	for i := range 3 {
		if err := put(ctx, d, fmt.Sprint("k", i)); err != nil {
			t.Fatal(err)
		}
	}
	clock.mu.Lock()
	if clock.waits != 3 || clock.dones != 3 || clock.bound != commitDelay {
		t.Errorf("clock told of %d waits, %d ends, bound %v; want 3, 3, %v", clock.waits, clock.dones, clock.bound, commitDelay)
	}
	clock.mu.Unlock()
	before := d.GroupStats()
	queueBehindHeld(t, d, 5)
	if n := d.GroupStats().Delays - before.Delays; n < 1 {
		t.Errorf("a contended commit waited %d delays, want at least one", n)
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	if clock.reads == 0 {
		t.Error("the commit delay did not watch the clock")
	}
}

// queueBehindHeld queues n writes behind a held one, then lets them all
// through and waits for them.
func queueBehindHeld(t *testing.T, d *DB, n int) {
	t.Helper()
	release := hold(d)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := put(context.Background(), d, fmt.Sprint("queued-", i)); err != nil {
				t.Error(err)
			}
		})
	}
	waitQueued(t, d, n)
	release()
	wg.Wait()
}

// countingClock records what the group commit asks of its clock; every
// reading of it is a commit delay later than the last.
type countingClock struct {
	mu                  sync.Mutex
	waits, dones, reads int
	bound               time.Duration
	now                 time.Time
}

func (c *countingClock) Await(max time.Duration) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits++
	c.bound = max
	return func() {
		c.mu.Lock()
		c.dones++
		c.mu.Unlock()
	}
}

func (c *countingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	c.now = c.now.Add(commitDelay)
	return c.now
}
