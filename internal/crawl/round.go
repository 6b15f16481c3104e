package crawl

import (
	"context"
	"errors"
	"fmt"
	"time"
)

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

// pushDue makes the WebSub requests that are due, a batch at a time, up to
// a hundred batches.
func (c *Crawler) pushDue(ctx context.Context) error {
	for range 100 {
		n, err := c.PushSubscriptions(ctx, batch)
		if err != nil || n < batch || ctx.Err() != nil {
			return err
		}
	}
	return nil
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

// batch is how many items one call of a batch job takes at a time.
const batch = 1000

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
