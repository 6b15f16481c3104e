package crawl

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
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

// round is one pass of the frontier: a round of `run`, or a batch
// command's one round (jobs.go).
type round struct {
	id    string    // names the round in site_checkouts: finished sites are not taken up again
	start time.Time // when it began (the clock's time)
	steps step      // the steps of a site's work it takes (siteSteps)
	// polls are the feeds chosen for a read by their schedule, by source:
	// `run`'s re-reads under FEED_BUDGET, or `articles fetch`'s --limit;
	// each is read if it is still due once its site is checked out.
	polls map[int64][]store.Feed
	// sites are offered first, in order: the sites of the polls (most
	// overdue first), or a batch command's.
	sites []string
	// sweep: after sites, every site with due work is taken, sweep after
	// sweep (`run`); else only sites (a batch command).
	sweep bool
	// only limits a batch command's round to what it chose; nil: all
	// that is due.
	only       *selection
	progress   *Progress
	stopReport context.CancelFunc // ends the round's progress reports
	cands      *candidates
	inFlight   int            // its sites still being worked
	retakes    map[string]int // sites taken up again after leaving to wait, by the frontier's goroutine only
	closed     bool           // no more sites are taken for it (done, or a newer round began)
	reported   bool           // roundOver has run
	wake       time.Time      // when to look for sites again, having found none due; zero: at a site's end
	errs       []error
}

// newRound is a round beginning at the clock's now, taking the given steps.
func (c *Crawler) newRound(steps step) *round {
	b := make([]byte, 6)
	rand.Read(b)
	now := c.Clock.Now()
	return &round{id: fmt.Sprintf("%d-%s", now.UnixNano(), hex.EncodeToString(b)), start: now, steps: steps,
		polls: map[int64][]store.Feed{}, retakes: map[string]int{}}
}

// batchRound is a batch command's round, limited to sel.
func (c *Crawler) batchRound(steps step, sel *selection) *round {
	r := c.newRound(steps)
	r.only = sel
	return r
}

// runRound is a round of `run`: every step of every site with due work,
// its feed re-reads chosen under FEED_BUDGET, most overdue first.
func (c *Crawler) runRound(ctx context.Context) (*round, error) {
	r := c.newRound(allSteps)
	r.sweep = true
	if err := c.calibrate(ctx); err != nil {
		c.Log.Warn("schedule not recalibrated", "err", err) // the last one stays in force
	}
	now := r.start
	feeds, err := c.Store.PollsDue(ctx, now, now.Add(-c.Settings.FeedInterval), now.Add(-c.Settings.DisallowedRecheck), c.feedBudget())
	if err != nil {
		return nil, fmt.Errorf("round: feeds due: %w", err)
	}
	seen := map[string]bool{}
	for _, f := range feeds {
		src, err := c.Store.Source(ctx, f.SourceID)
		if err != nil {
			return nil, fmt.Errorf("round: source of feed %s: %w", f.URL, err)
		}
		r.polls[f.SourceID] = append(r.polls[f.SourceID], f)
		if !seen[src.Site] {
			seen[src.Site] = true
			r.sites = append(r.sites, src.Site)
		}
	}
	return r, nil
}

func (r *round) query(c *Crawler, after int64) store.SiteQuery {
	now := c.Clock.Now()
	return store.SiteQuery{Now: now, SitemapsBefore: r.sitemapsBefore(c), Round: r.id, After: after, WaitBefore: now.Add(Horizon)}
}

// sitemapsBefore is the last read before which a sitemap is due: older than
// SITEMAP_INTERVAL, and read before the round began (so that an interval
// of 0, "always due", means once a round).
func (r *round) sitemapsBefore(c *Crawler) time.Time {
	before := c.Clock.Now().Add(-c.Settings.SitemapInterval)
	if r.start.Before(before) {
		return r.start
	}
	return before
}

// fail keeps a failure of the round's own queries (its due sites, its
// checkouts) and counts it in the round's errors, unless the round was
// stopped.
func (r *round) fail(err error) {
	if !errors.Is(err, context.Canceled) {
		r.progress.failure(reasonRound, 1)
	}
	r.errs = append(r.errs, err)
}

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

// candidates yields the sites a round checks out: first its own sites
// (those of its feed re-reads, most overdue first, or a batch command's;
// one still in flight for an earlier round is offered again once it has
// finished), then, for `run`, every site with due work, in the order of
// its sources, sweep after sweep while a sweep finds any. A batch
// command's site that left to wait is offered again when its wait is
// over.
type candidates struct {
	c       *Crawler
	r       *round
	offered int                 // r.sites already offered
	later   []string            // r.sites that were in flight when offered
	waiting []store.WaitingSite // a batch command's sites that left to wait, to offer again
	after   int64               // the sweep's cursor: the last source ID looked at
	found   bool                // this sweep checked out a site
	empty   bool                // a whole sweep, from the first source, checked out nothing
}

// soonest is the earliest end of a wait of the sites left to wait, if one
// ends by limit; those that end later stay left waiting (and are reported
// so when the round is over).
func (cs *candidates) soonest(limit time.Time) (time.Time, bool) {
	var at time.Time
	for _, w := range cs.waiting {
		if !w.Until.After(limit) && (at.IsZero() || w.Until.Before(at)) {
			at = w.Until
		}
	}
	return at, !at.IsZero()
}

// restart begins a new sweep, for sites given back, released or come due
// since.
func (cs *candidates) restart() { cs.after, cs.found, cs.empty = 0, false, false }

// take checks out up to n sites that are not in flight.
func (cs *candidates) take(ctx context.Context, n int, inFlight map[string]bool) ([]string, error) {
	var out []string
	if len(cs.waiting) > 0 {
		now := cs.c.Clock.Now()
		kept := cs.waiting[:0]
		for _, w := range cs.waiting {
			if w.Until.After(now) || inFlight[w.Site] || len(cs.later) >= n {
				kept = append(kept, w)
			} else {
				cs.later = append(cs.later, w.Site)
			}
		}
		cs.waiting = kept
	}
	if len(cs.later) > 0 {
		var want, still []string
		for _, site := range cs.later {
			if inFlight[site] || len(want) == n {
				still = append(still, site)
			} else {
				want = append(want, site)
			}
		}
		cs.later = still
		got, err := cs.checkOut(ctx, want)
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	for len(out) < n && cs.offered < len(cs.r.sites) {
		var want []string
		for cs.offered < len(cs.r.sites) && len(want) < n-len(out) {
			if site := cs.r.sites[cs.offered]; inFlight[site] {
				cs.later = append(cs.later, site)
			} else if !contains(out, site) {
				want = append(want, site)
			}
			cs.offered++
		}
		got, err := cs.checkOut(ctx, want)
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	if !cs.r.sweep {
		// Its sites that left to wait are nextDue's to wake for.
		cs.empty = cs.offered == len(cs.r.sites) && len(cs.later) == 0
		return out, nil
	}
	for len(out) < n && !cs.empty {
		due, err := cs.c.Store.DueSites(ctx, cs.r.query(cs.c, cs.after), 4*n)
		if err != nil {
			return out, err
		}
		if len(due) == 0 {
			// The sweep reached the last source. If it checked out anything,
			// sites may have become due behind it (given back by another
			// worker, say): sweep again; else all is handed out.
			if !cs.found {
				cs.empty = len(cs.later) == 0
				break
			}
			cs.after, cs.found = 0, false
			continue
		}
		var want []string
		seen := map[string]bool{}
		for _, d := range due {
			cs.after = d.SourceID
			if inFlight[d.Site] || seen[d.Site] || contains(out, d.Site) {
				continue
			}
			seen[d.Site] = true
			want = append(want, d.Site)
			if len(want) == n-len(out) {
				break
			}
		}
		got, err := cs.checkOut(ctx, want)
		if err != nil {
			return out, err
		}
		if len(got) > 0 {
			cs.found = true
		}
		out = append(out, got...)
	}
	return out, nil
}

// checkOut checks out those of want that are free for the round, and
// hands each one's timing, as the workers before left it, to the fetcher
// before its first request.
func (cs *candidates) checkOut(ctx context.Context, want []string) ([]string, error) {
	if len(want) == 0 {
		return nil, nil
	}
	got, err := cs.c.checkoutStore().CheckOutSites(ctx, cs.r.id, want)
	sites := make([]string, 0, len(got))
	for _, co := range got {
		cs.c.resumeSite(co)
		sites = append(sites, co.Site)
	}
	return sites, err
}

// siteHandover is a Fetcher that keeps a site's timing in this process
// (*fetch.Fetcher over its local lease), to be handed on with the site's
// checkout: see fetch.Fetcher.Handover.
type siteHandover interface {
	Handover(site string) (lastEnd, next time.Time)
	Resume(site string, lastEnd time.Time, w model.SiteWait)
}

// resumeSite gives the fetcher the timing a checkout brought of its site.
func (c *Crawler) resumeSite(co store.Checkout) {
	h, ok := c.Fetcher.(siteHandover)
	if !ok {
		return
	}
	w := model.SiteWait{Site: co.Site, Gap: co.Wait.Gap, End: co.Wait.End, Until: co.Wait.Until, Next: later(co.Next, co.Wait.Next)}
	h.Resume(co.Site, co.LastEnd, w)
}

// handover is the site's timing as this process leaves it, for its
// check-in; zero times when the fetcher keeps none.
func (c *Crawler) handover(site string) (lastEnd, next time.Time) {
	if h, ok := c.Fetcher.(siteHandover); ok {
		return h.Handover(site)
	}
	return time.Time{}, time.Time{}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// siteCheckouts is what the frontier's checkouts of sites ask of the
// store (frontier.go).
type siteCheckouts interface {
	CheckOutSites(ctx context.Context, round string, sites []string) ([]store.Checkout, error)
}

// checkoutStore checks the frontier's sites out: Store, unless a test set
// checkouts.
func (c *Crawler) checkoutStore() siteCheckouts {
	if c.checkouts != nil {
		return c.checkouts
	}
	return c.Store
}
