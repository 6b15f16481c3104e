package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// The request log off the request path. Observe queues each record and
// returns; one goroutine stores the queue with Store.LogRequests, up to
// logBatch records a transaction, the oldest waiting at most logEvery. A
// fetch never waits for a commit, and thousands of sites in flight cost a
// commit per few hundred requests rather than one each.
//
// The queue is bounded (logBuffer records, plus one for each Observe that
// waited). When it is full — the store is not keeping up — Observe waits
// until the writer takes the next batch, which slows the crawl to the
// store's pace; every waiter is let in by that batch, so none waits on
// another's luck. If the writer takes nothing for logFullWait (the store
// hangs) the record is dropped, with a warning, and counted, and the next
// Flush reports the loss. A record observed after Close is stored at once,
// the old way.
//
// The cadence is wall-clock time, not the crawler's Clock: it is about the
// disk's commits, not the crawl's schedule, and Flush (which Once calls)
// makes a run's records visible when it returns whatever the clock.
//
// A batch the store fails with one of its faults (store.ErrUnavailable,
// store.ErrCannotWrite: a database restarting, a full disk) is kept, at the
// head of the queue, and tried again at the next tick, so that the requests
// made before an outage are recorded once it is over (the fetcher sends
// none meanwhile); a Flush then says at once what is still waiting rather
// than wait for the store. Only when the writer stops (Close) is such a
// batch given up, and counted lost.
const (
	logBatch    = 500
	logEvery    = 200 * time.Millisecond
	logBuffer   = 20000
	logFullWait = 5 * time.Second
	// flushWait bounds Once's final flush when the store hangs.
	flushWait = time.Minute
)

// requestLogStore is what the request log needs of the store.
type requestLogStore interface {
	LogRequests(ctx context.Context, recs []model.RequestRecord) error
}

// requestLog is a Crawler's queue of records and its writer goroutine,
// started by the first record. Its zero value is ready to use.
type requestLog struct {
	mu      sync.Mutex
	queue   []model.RequestRecord
	started bool
	closed  bool
	// queued and handled number the records: every one queued so far,
	// and every one the writer has stored or failed to; taken counts the
	// batches the writer has taken from the queue.
	queued, handled, taken int64
	// lost counts the records dropped or failed since the last Flush,
	// err is the last failure's cause.
	lost int64
	err  error
	// dropping: the queue was full and a record was dropped; the writer
	// logs how many once it writes again.
	dropping bool
	dropped  int64
	// held counts the batches kept for the store's fault so far, and
	// holding is the fault while the last write failed with it; st is the
	// store the writer writes to.
	held    int64
	holding error
	st      requestLogStore

	kick     chan struct{} // capacity 1: write now (a full batch, a Flush, Close)
	progress chan struct{} // closed and replaced when the writer takes or handles records
	stop     chan struct{}
	done     chan struct{}

	// Limits, the constants unless a test lowers them.
	batch, buffer int
	every         time.Duration
	fullWait      time.Duration
}

// add queues rec, starting the writer on the first record; false: the log
// is closed and rec was not taken.
func (l *requestLog) add(st requestLogStore, log *slog.Logger, rec model.RequestRecord) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	if !l.started {
		l.start(st, log)
	}
	if len(l.queue) >= l.buffer && !l.waitForRoom() {
		if !l.dropping {
			log.Warn("request log full: the store is not keeping up; dropping records until it does",
				"queued", len(l.queue), "waited", l.fullWait)
		}
		l.dropping = true
		l.dropped++
		l.lost++
		l.err = fmt.Errorf("request log full for %s", l.fullWait)
		return true
	}
	if l.closed { // closed while waiting
		return false
	}
	l.queue = append(l.queue, rec)
	l.queued++
	if len(l.queue) >= l.batch {
		l.wake()
	}
	return true
}

// waitForRoom waits until the writer takes a batch or the log is closed,
// or fullWait passes (false); l.mu is held, and released while waiting.
func (l *requestLog) waitForRoom() bool {
	l.wake()
	deadline := time.Now().Add(l.fullWait)
	for taken := l.taken; l.taken == taken && !l.closed; {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		wait := l.progress
		l.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case <-wait:
		case <-t.C:
		}
		t.Stop()
		l.mu.Lock()
	}
	return true
}

// start sets the limits and starts the writer; l.mu is held.
func (l *requestLog) start(st requestLogStore, log *slog.Logger) {
	l.started, l.st = true, st
	if l.batch <= 0 {
		l.batch = logBatch
	}
	if l.buffer <= 0 {
		l.buffer = logBuffer
	}
	if l.every <= 0 {
		l.every = logEvery
	}
	if l.fullWait <= 0 {
		l.fullWait = logFullWait
	}
	l.kick = make(chan struct{}, 1)
	l.progress = make(chan struct{})
	l.stop = make(chan struct{})
	l.done = make(chan struct{})
	go l.run(st, log)
}

// wake asks the writer to write what is queued now.
func (l *requestLog) wake() {
	select {
	case l.kick <- struct{}{}:
	default: // asked already
	}
}

// run is the writer: every logEvery, or when woken, it stores everything
// queued, a batch at a time; on stop it stores the rest and returns.
func (l *requestLog) run(st requestLogStore, log *slog.Logger) {
	defer close(l.done)
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		stopping := false
		select {
		case <-l.kick:
		case <-tick.C:
		case <-l.stop:
			stopping = true
		}
		for l.writeBatch(st, log, stopping) {
		}
		if stopping {
			return
		}
	}
}

// writeBatch stores the oldest records queued, up to a batch; false:
// nothing was queued, or the batch was kept for the store's fault (unless
// stopping: then it is lost).
func (l *requestLog) writeBatch(st requestLogStore, log *slog.Logger, stopping bool) bool {
	l.mu.Lock()
	if l.holding != nil && !stopping && storeDown(st) {
		// Still down: whoever waits for the store (the frontier) probes
		// it; a write tried every tick would only fail again.
		l.mu.Unlock()
		return false
	}
	n := min(len(l.queue), l.batch)
	if n == 0 {
		l.mu.Unlock()
		return false
	}
	// The batch keeps the head of the array; the queue appends past its
	// end, and the next growth copies only what is still queued.
	batch := l.queue[:n:n]
	l.queue = l.queue[n:]
	l.taken++
	l.changed() // room in the queue
	l.mu.Unlock()

	err := st.LogRequests(context.Background(), batch)

	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil && !stopping && (errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrCannotWrite)) {
		if l.holding == nil {
			log.Warn("request log write failed: the store's fault; the records are kept until it records again", "records", n, "err", err)
		}
		l.queue = append(batch, l.queue...) // batch ends where the queue began: a copy
		l.held++
		l.holding = err
		l.changed()
		return false
	}
	if err == nil && l.holding != nil {
		log.Info("request log writes again", "records_waiting", len(l.queue)+n)
		l.holding = nil
	}
	if err != nil {
		log.Warn("request log write failed", "records", n, "err", err)
		l.lost += int64(n)
		l.err = err
	} else if l.dropping {
		log.Warn("request log writes again", "dropped", l.dropped)
		l.dropping, l.dropped = false, 0
	}
	l.handled += int64(n)
	l.changed()
	return true
}

// storeDown reports whether st says it cannot record now (a store that
// keeps its health: *store.DB).
func storeDown(st requestLogStore) bool {
	h, ok := st.(interface{ Health() error })
	return ok && h.Health() != nil
}

// changed wakes whoever waits for progress; l.mu is held.
func (l *requestLog) changed() {
	close(l.progress)
	l.progress = make(chan struct{})
}

// flush waits until every record queued before the call is handled, and
// reports the records lost since the last flush.
func (l *requestLog) flush(ctx context.Context) error {
	l.mu.Lock()
	if !l.started {
		l.mu.Unlock()
		return nil
	}
	target, held := l.queued, l.held
	l.mu.Unlock()
	l.wake()
	for {
		l.mu.Lock()
		if l.holding != nil && l.handled < target && (l.held > held || storeDown(l.st)) {
			waiting, err := target-l.handled, l.holding
			l.mu.Unlock()
			return fmt.Errorf("%d request records waiting for the store: %w", waiting, err)
		}
		if l.handled >= target {
			lost, err := l.lost, l.err
			l.lost, l.err = 0, nil
			l.mu.Unlock()
			if lost > 0 {
				return fmt.Errorf("%d request records not stored: %w", lost, err)
			}
			return nil
		}
		wait := l.progress
		l.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close stores everything queued and stops the writer; records observed
// afterwards are stored one by one.
func (l *requestLog) close() error {
	l.mu.Lock()
	if l.closed || !l.started {
		l.closed = true
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	return l.flush(context.Background())
}

// Flush waits until every request observed so far is in the store's
// request log (or ctx ends); it reports the records that could not be
// stored since the last Flush.
func (c *Crawler) Flush(ctx context.Context) error {
	return c.requests.flush(ctx)
}

// Close stores the requests still queued and stops the request log's
// writer. The Crawler stays usable: later requests are logged one by one.
func (c *Crawler) Close() error {
	return c.requests.close()
}

// flushRequests is Once's last act: the run's requests are in the log when
// it returns, even when ctx ended (Ctrl-C), unless the store hangs.
func (c *Crawler) flushRequests(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushWait)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		c.Log.Warn("request log flush failed", "err", err)
	}
}

// Observe is the fetcher's Options.Observe: every request goes to the
// store's request log, in batches written behind the fetcher's back (see
// requestlog.go; Flush waits for them), and robots.txt statuses are kept
// for the origin records.
func (c *Crawler) Observe(rec model.RequestRecord) {
	c.progress.Load().observe(rec)
	if rec.Purpose == model.PurposeRobots && rec.Outcome != model.OutcomeRedirect {
		c.robotsStatus.Store(rec.Origin, rec.Status)
		if rec.Status == 0 || rec.Status >= 500 || rec.Status == 429 {
			c.robotsWhy.Store(rec.Origin, fetch.RecordReason(rec))
		} else {
			c.robotsWhy.Delete(rec.Origin)
		}
	}
	if c.requests.add(c.requestSink(), c.Log, rec) {
		return
	}
	// After Close: stored at once.
	if err := c.requestSink().LogRequests(context.Background(), []model.RequestRecord{rec}); err != nil {
		c.Log.Warn("request log write failed", "url", rec.URL, "err", err)
	}
}

// requestSink is where the request log is stored: Store, unless a test
// set requestStore.
func (c *Crawler) requestSink() requestLogStore {
	if c.requestStore != nil {
		return c.requestStore
	}
	return c.Store
}

// pruneBatch is how many request-log rows one prune transaction deletes.
const pruneBatch = 5000

// pruneRequestLog deletes the request-log rows older than
// REQUEST_LOG_RETENTION (0 keeps them all), a batch at a time so that the
// crawl's own writes are never kept waiting long.
func (c *Crawler) pruneRequestLog(ctx context.Context) error {
	keep := c.Settings.RequestLogRetention
	if keep <= 0 {
		return nil
	}
	c.flushRequests(ctx)
	before := c.Clock.Now().Add(-keep)
	var total int64
	for ctx.Err() == nil {
		n, err := c.Store.PruneRequests(ctx, before, pruneBatch)
		total += n
		if err != nil {
			return err
		}
		if n < pruneBatch {
			break
		}
	}
	if total > 0 {
		c.Log.Info("request log pruned", "rows", total, "before", before.Format(time.RFC3339))
	}
	return nil
}
