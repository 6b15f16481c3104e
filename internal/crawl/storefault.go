package crawl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
)

// Our own store failing is not a site's fault and no reason to keep
// fetching. The store tells two of its faults apart (store/faults.go) and
// keeps its health, which the fetcher reads before every request
// (fetch/storegate.go); the crawler acts on them:
//
//   - The store cannot write (a full disk, a read-only or corrupt
//     database): the frontier takes no more sites at once; the sites in
//     flight end at their next request, which the fetcher does not send,
//     their work left due (nothing of it could be recorded). `run --once`
//     and the batch commands then end with one error that says what and
//     where; `run` waits, asking the store again with back-off (Probe,
//     which writes), and takes the round up again once it writes.
//   - The store is unavailable (a connection refused or lost, the server
//     restarting): the same pause, for every command, for at most DB_WAIT
//     from the first failure, then the command gives up. A site's visit
//     cut off so is not the site's error: its items are still due and its
//     checkout is this process's own, so the round takes it up again.
//
// A write that failed with either fault is an error of the round (a page
// fetched and not saved is never a new post), and so is an opt-out check
// that failed; a request not sent because the store could not record it
// is neither a request nor an error of its own.

// The back-off of the store's probes: the first at once, then half a
// second after, doubling up to storeRetryMax. A probe costs the database a
// query and a write, nothing to the sites; a short ceiling resumes the
// crawl within seconds of the database's return (a restart of 8 s was
// noticed 7 s late at a ceiling of 30 s).
const (
	storeRetryFirst = 500 * time.Millisecond
	storeRetryMax   = 5 * time.Second
)

// storeFault is the store's fault that err is or carries, nil when it is
// none, as the store reads it (which also makes it the store's health): a
// request the fetcher did not send for the store's health carries it. A
// failure the store does not read as one of its faults (an opt-out check
// or a cluster lease that failed otherwise) is not waited for: waiting
// would mend nothing, and a probe that succeeds would only start it over.
func (c *Crawler) storeFault(err error) error {
	if err == nil {
		return nil
	}
	if fe := c.Store.Fault(err); fe != nil {
		return fe
	}
	return nil
}

// watchStore has the store tell the round in progress of every write that
// fails with one of its faults: an error of the round. Once per Crawler.
func (c *Crawler) watchStore() {
	c.storeWatch.Do(func() {
		c.Store.SetFaultObserver(func(fe *store.FaultError) { c.progress.Load().failure(fe.Fault.String(), 1) })
	})
}

// stopIfStoreDown ends the job's context, with err as its cause, when err
// is a request the fetcher did not send for the store's sake: nothing of
// the site's work can be recorded now, so none of it is done; its items
// stay due, their tries untouched. A failed opt-out check is counted as
// an error of the round.
func (c *Crawler) stopIfStoreDown(ctx context.Context, err error) {
	if !errors.Is(err, fetch.ErrStoreDown) {
		return
	}
	if errors.Is(err, fetch.ErrOptOutCheck) {
		c.progress.Load().failure(fetch.ErrOptOutCheck.Error(), 1)
	}
	if j := jobOf(ctx); j != nil {
		j.stop(err)
	}
}

// stopForStore ends the job's context when the store is not healthy
// (a fault another site's write met, say), and reports whether it did.
func (c *Crawler) stopForStore(ctx context.Context) bool {
	h := c.Store.Health()
	if h == nil {
		return false
	}
	if j := jobOf(ctx); j != nil {
		j.stop(h)
	}
	return true
}

// storeStopped is what ended the job's context for the store's sake (a
// request not sent, the store's health), if that is what did.
func (c *Crawler) storeStopped(ctx context.Context) error {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) {
		return nil
	}
	if errors.Is(cause, fetch.ErrStoreDown) || c.storeFault(cause) != nil {
		return cause
	}
	return nil
}

// awaitStore waits until the store records writes again after fault,
// asking it (Probe) with back-off, and returns nil then. It gives up, with
// the error a command ends with, on a store that cannot write unless
// waitCannotWrite (`run`, which waits as long as it takes), and on one
// unavailable once DB_WAIT has passed since the wait began.
func (c *Crawler) awaitStore(ctx context.Context, fault error, waitCannotWrite bool) error {
	began := time.Now() // the store's outage is the world's time, not the crawl's clock
	if errors.Is(fault, store.ErrCannotWrite) && !waitCannotWrite {
		// Not waited for; but a fault met before (by an earlier run of this
		// process) may be over: one probe says.
		if err := c.Store.Probe(ctx); err == nil {
			return nil
		}
		return c.storeGaveUp(fault, 0)
	}
	c.Log.Warn("store fault: no request is sent until it records writes again", "reason", faultReason(fault),
		"waiting", c.storeWaitText(fault, waitCannotWrite))
	wait := storeRetryFirst
	for {
		err := c.Store.Probe(ctx)
		if err == nil {
			c.Log.Info("store records writes again: crawling resumes", "after", time.Since(began).Round(time.Millisecond).String())
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if f := c.storeFault(err); f != nil {
			fault = f
		}
		cannotWrite := errors.Is(fault, store.ErrCannotWrite)
		if cannotWrite && !waitCannotWrite {
			return c.storeGaveUp(fault, time.Since(began))
		}
		left := time.Duration(-1) // no limit
		if !cannotWrite {
			left = c.Settings.DBWait - time.Since(began)
			if left <= 0 {
				return c.storeGaveUp(fault, time.Since(began))
			}
		}
		c.Log.Debug("store still down", "reason", faultReason(fault), "next_probe_in", wait.String())
		pause := wait
		if left >= 0 {
			pause = min(pause, left)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, storeRetryMax)
	}
}

// storeWaitText says how long awaitStore waits for fault.
func (c *Crawler) storeWaitText(fault error, waitCannotWrite bool) string {
	if errors.Is(fault, store.ErrCannotWrite) && waitCannotWrite {
		return "until it writes"
	}
	return "up to " + c.Settings.DBWait.String() + " (DB_WAIT)"
}

// storeGaveUp is the error a command ends with when the store failed it:
// one line, saying what failed, where, and how the crawl ended.
func (c *Crawler) storeGaveUp(fault error, waited time.Duration) error {
	if errors.Is(fault, store.ErrCannotWrite) {
		return fmt.Errorf("%w: %s: crawling stopped after %s", store.ErrCannotWrite, faultReason(fault),
			plural(int(c.Store.FailedWrites(store.CannotWrite)), "failed write"))
	}
	return fmt.Errorf("%w: %s: gave up after %s (DB_WAIT %s)", store.ErrUnavailable, faultReason(fault), waited.Round(time.Second), c.Settings.DBWait)
}

// faultReason is the fault in a few words: the driver's message and the
// database's place when the store read it.
func faultReason(fault error) string {
	var fe *store.FaultError
	if errors.As(fault, &fe) {
		return fe.Reason()
	}
	return fault.Error()
}

// retryStore runs fn, a query a command cannot go on without (a round's
// start, a batch command's choice of work): when it fails with one of the
// store's faults it waits for the store (awaitStore; `run` waits for a
// store that cannot write too) and runs it again, until it succeeds, fails
// otherwise, or the wait gives up.
func (c *Crawler) retryStore(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		fault := c.storeFault(err)
		if fault == nil || ctx.Err() != nil {
			return err
		}
		if werr := c.awaitStore(ctx, fault, c.looping); werr != nil {
			return werr
		}
	}
}
