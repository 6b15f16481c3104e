package crawl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

// round is one pass of the frontier: a round of `run`, or a batch
// command's one round (batch.go).
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

// Once does all the work that is due, as one round of the frontier
// (frontier.go): every site with due work, up to CONCURRENCY at once, each
// through its own sequence; then the WebSub subscriptions that are due. It
// returns when nothing is due within the horizon — including what other
// workers on the same database hold and may give back — or ctx ends. A
// site that asked for a longer wait is left waiting, its time stored, and
// named in the round's summary.
func (c *Crawler) Once(ctx context.Context) error {
	defer c.flushRequests(ctx) // the run's requests are in the log when it returns
	r, err := c.beginRoundWaiting(ctx)
	if err != nil {
		return err
	}
	return c.frontier(ctx, r, 0)
}

// beginRoundWaiting is beginRound, waiting for a store that failed its
// queries (retryStore): a database restarting ends no command.
func (c *Crawler) beginRoundWaiting(ctx context.Context) (r *round, err error) {
	err = c.retryStore(ctx, func() error {
		r, err = c.beginRound(ctx)
		return err
	})
	return r, err
}

// beginRound starts a round of `run`: its feed re-reads, its count of due
// sites and its progress reports.
func (c *Crawler) beginRound(ctx context.Context) (*round, error) {
	r, err := c.runRound(ctx)
	if err != nil {
		return nil, err
	}
	due, err := c.Store.CountDueSites(ctx, r.query(c, 0))
	if err != nil {
		return nil, err
	}
	c.startRound(ctx, r, due+len(r.sites))
	return r, nil
}

// startRound starts a round's candidates and its progress reports, sites
// the sites it expects to work.
func (c *Crawler) startRound(ctx context.Context, r *round, sites int) {
	r.cands = &candidates{c: c, r: r}
	r.progress = newProgress(int64(sites))
	c.progress.Store(r.progress)
	rctx, stop := context.WithCancel(ctx)
	r.stopReport = stop
	go c.report(rctx, r.progress)
}

// roundOver ends a round whose sites are done: the WebSub subscriptions
// that are due, the request log's pruning, and the round's summary, with
// the sites left waiting; it returns the round's errors.
func (c *Crawler) roundOver(ctx context.Context, r *round) error {
	r.stopReport()
	c.progress.CompareAndSwap(r.progress, nil)
	err := errors.Join(r.errs...)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.Meter.RoundDone(c.Clock.Now().Sub(r.start))
	// A store that failed the round (storefault.go) is not asked for more:
	// the round only says what it did.
	healthy := c.Store.Health() == nil
	if r.sweep && healthy { // a round of run; a batch command does only its own work
		// WebSub: requests to hubs, not to the sites; a few, after the sites.
		if perr := c.retryStore(ctx, func() error { return c.pushDue(ctx) }); perr != nil {
			r.progress.failure(reasonWebSub, failures(perr))
			err = errors.Join(err, perr)
		}
		if perr := c.pruneRequestLog(ctx); perr != nil {
			c.Log.Warn("request log not pruned", "err", perr)
		}
	}
	s, p := r.progress.Snapshot(), r.progress
	attrs := []any{"sites", s.SitesDone, "requests", s.Requests, "not_modified", p.unchanged.Load(),
		"new_posts", p.newPosts.Load(), "modified_posts", p.modifiedPosts.Load(), "removed_posts", p.removedPosts.Load(),
		"errors", s.Errors}
	if s.Errors > 0 {
		attrs = append(attrs, "error_reasons", p.errorReasons())
	}
	attrs = append(attrs, "took", s.Elapsed.Round(time.Millisecond).String())
	if c.cadence > 0 {
		attrs = append(attrs, "next_round", nextRoundAt(r.start, c.cadence, c.Clock.Now()).Format(time.RFC3339))
	}
	var waiting int
	var werr error
	if healthy {
		waiting, werr = c.reportWaiting(ctx, r)
	}
	if werr != nil {
		c.Log.Warn("sites left waiting not listed", "err", werr)
	}
	if waiting > 0 {
		attrs = append(attrs, "sites_waiting", waiting)
	}
	if s.SitesDone == 0 && s.Requests == 0 && r.sweep && healthy {
		why, nerr := c.nothingDue(ctx)
		if nerr != nil {
			c.Log.Warn("why nothing was due not found", "err", nerr)
		} else {
			attrs = append(attrs, "nothing_due", why)
		}
	}
	c.Log.Info("round done", attrs...)
	return errors.Join(err, p.unreached())
}

// nextRoundAt is when the round begun at start is followed by the next:
// a cadence after its start, or now when that is already past (a round
// that took longer than the cadence), never a time gone by.
func nextRoundAt(start time.Time, cadence time.Duration, now time.Time) time.Time {
	return later(start.Add(cadence), now)
}

// nothingDue says why a round found nothing to do, for its summary: the
// sources waiting for a retry, the soonest and its last failure (a
// source whose host cannot be resolved, say), or that none waits.
func (c *Crawler) nothingDue(ctx context.Context) (string, error) {
	now := c.Clock.Now()
	w, err := c.Store.RetriesWaiting(ctx, now)
	if err != nil {
		return "", err
	}
	switch {
	case w.Sources == 0:
		return "no source to crawl (corpusbot sources add URL adds one)", nil
	case w.Waiting > 0:
		why := fmt.Sprintf("%s waiting for a retry, the next at %s (in %s)", plural(w.Waiting, "source"),
			w.Next.UTC().Format(time.RFC3339), w.Next.Sub(now).Round(time.Second))
		if w.Error != "" {
			why += ", last failure: " + w.Error
		}
		return why, nil
	}
	return fmt.Sprintf("%s, none waiting for a retry: each is read again when its interval (FEED_INTERVAL, SITEMAP_INTERVAL, ROBOTS_TTL) has passed",
		plural(w.Sources, "source")), nil
}

// plural is "1 source", "2 sources".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// waitingListed is the most sites left waiting a round's summary names
// one by one.
const waitingListed = 20

// reportWaiting logs the sites with due work that wait for their next
// permitted request beyond the horizon, soonest first, and returns how
// many there are (up to a thousand counted).
func (c *Crawler) reportWaiting(ctx context.Context, r *round) (int, error) {
	sites := r.cands.waiting // a batch command's round: its own sites
	if r.sweep {
		q := r.query(c, 0)
		q.Round = "" // finished for this round or not: the site still waits
		var err error
		if sites, err = c.Store.WaitingSites(ctx, q, 1000); err != nil {
			return 0, err
		}
	}
	for i, w := range sites {
		if i == waitingListed {
			c.Log.Info("more sites left waiting", "sites", len(sites)-i)
			break
		}
		c.Log.Info("site left waiting", "site", w.Site, "until", w.Until.UTC().Format(time.RFC3339),
			"in", w.Until.Sub(c.Clock.Now()).Round(time.Second).String())
	}
	return len(sites), nil
}

// minCadence is the shortest time between the starts of two rounds of
// Loop: a RUN_INTERVAL of 0 (compressed time) starts one a second, not one
// for every site that finishes.
const minCadence = time.Second

// Loop runs the frontier with a new round every cadence (the seed's
// hourly runs) until ctx ends. There is no barrier between rounds: a new
// one begins on time whatever the last still has in flight, so a site that
// comes due is taken up while others are still being worked.
func (c *Crawler) Loop(ctx context.Context, cadence time.Duration) error {
	c.cadence, c.looping = cadence, true
	defer c.flushRequests(context.WithoutCancel(ctx))
	r, err := c.beginRoundWaiting(ctx)
	if err == nil {
		err = c.frontier(ctx, r, max(cadence, minCadence))
	}
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil // cancelled: a clean stop
}
