package crawl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
)

// The frontier: a round of `run` is not a sequence of phases over the whole
// population but every site with due work worked on as one sequence of its
// own — robots.txt, discovery, feeds, catalogue walks, sitemaps, pages, in
// that order for that site — with up to CONCURRENCY sites in flight at
// once. A site in flight is one goroutine that spends most of its life
// waiting out its gaps on the clock, so a site that must wait costs a
// timer, not a worker; as sites finish, the frontier checks out more from
// the store, a few at a time, so a round never waits on its slowest site
// before starting others, and workers sharing a database share its sites
// from the first minute.

// checkoutBatch is the most sites checked out at once when a round starts
// or after a checkout found fewer than it asked for: small, so that workers
// starting together interleave instead of one taking everything. While
// checkouts come back full, each asks for twice as many as the last, up to
// checkoutBatchMax: a checkout is a commit (15 ms or more on SQLite, which
// groups them), and 2,000 sites taken 16 at a time began over 3 s, the
// last of them 10% of a first pass late (BenchmarkFirstPassWall;
// with the doubling, within 1 s).
const (
	checkoutBatch    = 16
	checkoutBatchMax = 1024
)

// heldPoll is how often a worker with nothing left of its own looks again
// for due sites that other workers hold (`run --once` waits for them: they
// may be given back unfinished).
const heldPoll = 2 * time.Second

// busyClock is a simulated clock that must know which goroutines are at
// work, because it moves time only when all of them wait
// (simweb.EventClock): the frontier tells it of every site it starts.
type busyClock interface{ Busy() (done func()) }

// busyTracker is the clock's Busy, or a no-op for a clock that needs none.
func (c *Crawler) busyTracker() func() (done func()) {
	if t, ok := c.Clock.(busyClock); ok {
		return t.Busy
	}
	return func() func() { return func() {} }
}

// visitEnder is a Fetcher that keeps something for a site between requests
// that it can let go of once the site's visit is over (*fetch.Fetcher: its
// open connections).
type visitEnder interface{ VisitDone(site string) }

// visitDone tells the fetcher that the frontier is done with site for now.
func (c *Crawler) visitDone(site string) {
	if f, ok := c.Fetcher.(visitEnder); ok {
		f.VisitDone(site)
	}
}

// Horizon is the longest the frontier waits for one site. A site whose
// next permitted request is further off (a back-off grown by its errors, a
// Retry-After, a Crawl-delay beyond fetch.MaxWaitedFloor) gives its slot
// back at once: its wait is stored (fetch.Waits, site_waits), the store
// leaves it out of the due sites until then, and the frontier goes on with
// the others. `run --once` ends when nothing is due within the horizon;
// `run` takes the site up again when its time comes. A site's sequence
// also waits for its items' retries only within it (awaitRetries).
const Horizon = 30 * time.Second

// maxRetakes is how many times one round takes up again a site that left
// it to wait: each time costs the site at least one request, and a site
// that keeps asking for waits just past the horizon is then done for the
// round, so that a round always ends.
const maxRetakes = 3

// notWaiting is err without the site's wait (fetch.WaitError) that workSite
// may return beside what failed: nil when there is nothing else.
func notWaiting(err error) error {
	if _, ok := fetch.WaitUntil(err); !ok {
		return err
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil // the wait alone
	}
	var rest []error
	for _, e := range j.Unwrap() {
		if _, ok := fetch.WaitUntil(e); !ok {
			rest = append(rest, e)
		}
	}
	return errors.Join(rest...)
}

// siteDone is one site's visit ended.
type siteDone struct {
	site string
	r    *round
	err  error
}

// frontier keeps up to CONCURRENCY sites in flight, taking them from the
// current round's candidates (cur first), until ctx ends or, with a
// cadence of 0 (`run --once` and the batch commands: one round), nothing
// of the round is due within the horizon, none is in flight and no other
// worker holds one that is due. Otherwise (`run`),
// a new round begins every cadence whatever is still in flight: there is
// no barrier between rounds, so a site that comes due is taken up while
// others are still being worked, and a slow or waiting site holds up no
// other; a site that left to wait is taken up again when its time comes.
// A round is over, and reports (roundOver), once it has nothing due and
// nothing in flight, or a newer round began and its last site finished.
func (c *Crawler) frontier(ctx context.Context, cur *round, cadence time.Duration) error {
	once := cadence == 0
	slots := c.Concurrency
	results := make(chan siteDone)
	inFlight := map[string]bool{}
	busy := c.busyTracker()
	idle := busy() // this goroutine, while it works
	defer func() { idle() }()
	var onceErr error
	// down is the store's fault that stopped the taking of sites, until
	// the store records writes again (storefault.go).
	var down error
	c.watchStore()
	over := func(r *round) {
		r.reported = true
		err := c.roundOver(ctx, r)
		if once {
			onceErr = err
		} else if err != nil && ctx.Err() == nil {
			c.Log.Warn("run round failed", "err", err)
		}
	}
	nextRound := cur.start.Add(cadence)
	finish := func(d siteDone) {
		delete(inFlight, d.site)
		c.Meter.SiteDone()
		d.r.inFlight--
		d.r.progress.finished1(d.err)
		until, waiting := fetch.WaitUntil(d.err)
		if waiting {
			d.r.retakes[d.site]++
			if !d.r.sweep && d.r.retakes[d.site] <= maxRetakes {
				d.r.cands.waiting = append(d.r.cands.waiting, store.WaitingSite{Site: d.site, Until: until})
			}
			c.Log.Info("site left to wait", "site", d.site, "until", until.UTC().Format(time.RFC3339))
		}
		if f := c.storeFault(d.err); f != nil && !waiting && ctx.Err() == nil {
			// The store's fault, not the site's: nothing of it was recorded,
			// and the round takes it up again once the store records.
			down = cmp.Or(down, f)
			if d.r == cur {
				cur.cands.later = append(cur.cands.later, d.site)
			}
		} else if err := notWaiting(d.err); err != nil && ctx.Err() == nil {
			// What failed, beside a wait (workSite returns both), is the round's.
			d.r.errs = append(d.r.errs, fmt.Errorf("site %s: %w", d.site, err))
		}
		if d.r != cur && d.r.inFlight == 0 && !d.r.reported {
			over(d.r)
		}
	}
	batch := checkoutBatch
	for {
		if down == nil && ctx.Err() == nil {
			down = c.Store.Health() // a fault met anywhere stops the taking at once
		}
		for down == nil && !cur.closed && len(inFlight) < slots && ctx.Err() == nil {
			want := min(slots-len(inFlight), batch)
			sites, err := cur.cands.take(ctx, want, inFlight)
			if f := c.storeFault(err); f != nil {
				down = f
				break
			}
			if err != nil {
				cur.fail(err)
				cur.closed = true
				break
			}
			if len(sites) < want {
				batch = checkoutBatch
			} else {
				batch = min(2*batch, checkoutBatchMax)
			}
			if len(sites) == 0 {
				break
			}
			for _, site := range sites {
				inFlight[site] = true
				c.Meter.SiteStarted()
				cur.inFlight++
				cur.progress.started1()
				r, mayRetake := cur, cur.retakes[site] < maxRetakes
				working := busy()
				go func() {
					err := c.workSite(ctx, r, site, mayRetake)
					c.visitDone(site)
					working()
					results <- siteDone{site, r, err}
				}()
			}
		}
		if ctx.Err() != nil {
			if len(inFlight) == 0 {
				break
			}
		} else if down != nil {
			if len(inFlight) == 0 {
				// Every site in flight has ended (its next request was not
				// sent): wait for the store, or give up.
				if err := c.awaitStore(ctx, down, !once); err != nil {
					if ctx.Err() != nil {
						continue
					}
					if !cur.reported {
						over(cur) // the round's line, its failed writes counted
					}
					return err
				}
				down, cur.wake, cur.closed = nil, time.Time{}, false
				cur.cands.restart()
				continue
			}
		} else if !cur.closed && cur.cands.empty {
			// Nothing to take now: when to look again without a site
			// finishing (a waiting site's time, sites other workers hold)?
			at, ok, err := c.nextDue(ctx, cur, once, len(inFlight) == 0)
			switch {
			case c.storeFault(err) != nil:
				down = c.storeFault(err)
			case err != nil:
				cur.fail(err)
				cur.closed = true
			case ok:
				cur.wake = at
			default:
				cur.wake = time.Time{}
				if once && len(inFlight) == 0 {
					cur.closed = true
				}
			}
			if !once && cur.inFlight == 0 && !cur.reported {
				// What was due is done: the round reports. A waiting site
				// taken up later is counted in it all the same.
				over(cur)
			}
		}
		if down != nil && len(inFlight) == 0 && ctx.Err() == nil {
			continue // the store failed a query just now: wait for it (above)
		}
		if once && cur.closed && len(inFlight) == 0 {
			if !cur.reported {
				over(cur)
			}
			break
		}
		if ctx.Err() != nil && len(inFlight) == 0 {
			continue // stopped while it asked the store (nextDue): nothing to wait for
		}
		wake := cur.wake
		if !once && (wake.IsZero() || nextRound.Before(wake)) {
			wake = nextRound
		}
		if ctx.Err() != nil || down != nil {
			wake = time.Time{} // stopping or paused: only the sites in flight are waited for
		}
		idle()
		var d siteDone
		var got, woke bool
		if wake.IsZero() {
			d, got = <-results, true
		} else {
			d, got, woke = c.awaitSite(ctx, results, wake)
		}
		idle = busy()
		if got {
			finish(d)
			// Every site finished meanwhile is taken too, so that their
			// slots are refilled by one checkout: refilled one at a time,
			// each waiting for its checkout's commit, a crawl of short
			// site visits (a day of feed polls) started no more sites a
			// second than the store commits.
		drain:
			for {
				select {
				case d := <-results:
					finish(d)
				default:
					break drain
				}
			}
		}
		if !woke || ctx.Err() != nil || down != nil {
			continue
		}
		if !once && !c.Clock.Now().Before(nextRound) {
			// A new round: the current one takes no more sites, and is over
			// once those it has in flight have finished.
			cur.closed = true
			if cur.inFlight == 0 && !cur.reported {
				over(cur)
			}
			next, err := c.beginRound(ctx)
			nextRound = c.Clock.Now().Add(cadence)
			if err != nil {
				if f := c.storeFault(err); f != nil {
					down = f
				}
				c.Log.Warn("run round not started", "err", err)
				cur.closed = false // the old round goes on taking what is due
				cur.cands.restart()
				continue
			}
			cur, nextRound = next, next.start.Add(cadence)
			continue
		}
		cur.wake = time.Time{}
		cur.cands.restart()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return onceErr
}

// awaitSite waits for a site to finish or for the clock to reach wake,
// whichever comes first (or ctx to end: woke).
func (c *Crawler) awaitSite(ctx context.Context, results <-chan siteDone, wake time.Time) (d siteDone, got, woke bool) {
	wait := wake.Sub(c.Clock.Now())
	if wait <= 0 {
		select {
		case d = <-results:
			return d, true, false
		default:
			return d, false, true
		}
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := make(chan func(), 1)
	busy := c.busyTracker()
	go func() {
		c.Clock.Sleep(tctx, wait)
		// Busy until the frontier has taken the wake-up, so that a
		// simulated clock does not move on in between.
		timer <- busy()
	}()
	select {
	case d = <-results:
		cancel()
		if done := <-timer; done != nil {
			done()
		}
		return d, true, false
	case done := <-timer:
		done()
		return d, false, true
	}
}

// nextDue is when the frontier, having no site to take, should look again:
// the soonest time a site that left to wait may be asked (for --once,
// only within the horizon), or, while nothing of ours is in flight, a
// poll for the due sites other workers hold, which they may give back
// unfinished. ok is false when there is nothing to look for.
func (c *Crawler) nextDue(ctx context.Context, r *round, once, idle bool) (time.Time, bool, error) {
	now := c.Clock.Now()
	if !r.sweep {
		// A batch command's round: only its own sites that left to wait,
		// within the horizon; a site another worker holds is being worked.
		at, ok := r.cands.soonest(now.Add(Horizon))
		return at, ok, nil
	}
	q := r.query(c, 0)
	q.WaitBefore = now
	waiting, err := c.Store.WaitingSites(ctx, q, 1)
	if err != nil {
		return time.Time{}, false, err
	}
	var at time.Time
	ok := false
	if len(waiting) > 0 && (!once || !waiting[0].Until.After(now.Add(Horizon))) {
		at, ok = waiting[0].Until, true
	}
	if idle {
		held, err := c.Store.DueSitesHeld(ctx, r.query(c, 0))
		if err != nil {
			return time.Time{}, false, err
		}
		if held > 0 {
			c.Log.Debug("waiting for sites other workers hold", "sites", held)
			if poll := now.Add(heldPoll); !ok || poll.Before(at) {
				at, ok = poll, true
			}
		}
	}
	return at, ok, nil
}
