package crawl

import (
	"context"
	"errors"
	"time"
)

// Once does all the work that is due, as one round of the frontier
// (frontier.go): every site with due work, up to CONCURRENCY at once, each
// through its own sequence; then the WebSub subscriptions that are due. It
// returns when nothing is due — including what other workers on the same
// database hold and may give back — or ctx ends.
func (c *Crawler) Once(ctx context.Context) error {
	defer c.flushRequests(ctx) // the run's requests are in the log when it returns
	r, err := c.newRound(ctx)
	if err != nil {
		return err
	}
	due, err := c.Store.CountDueSites(ctx, r.query(c, 0))
	if err != nil {
		return err
	}
	r.progress = newProgress(int64(due + len(r.pollSites)))
	c.progress.Store(r.progress)
	defer c.progress.Store(nil)
	rctx, stopReport := context.WithCancel(ctx)
	go c.report(rctx, r.progress)
	err = c.frontier(ctx, r)
	stopReport()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// WebSub: requests to hubs, not to the sites; a few, after the sites.
	for range 100 {
		n, perr := c.PushSubscriptions(ctx, batch)
		if perr != nil {
			err = errors.Join(err, perr)
			break
		}
		if n < batch || ctx.Err() != nil {
			break
		}
	}
	if perr := c.pruneRequestLog(ctx); perr != nil {
		c.log().Warn("request log not pruned", "err", perr)
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
		attrs = append(attrs, "next_round", r.start.Add(c.cadence).Format(time.RFC3339))
	}
	c.log().Info("round done", attrs...)
	return errors.Join(err, p.unreached())
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
		c.log().Info("request log pruned", "rows", total, "before", before.Format(time.RFC3339))
	}
	return nil
}

// batch is how many items one call of a batch job takes at a time.
const batch = 1000

// Loop starts Once every cadence (the seed's hourly runs) until ctx ends;
// a failed round is logged and the next one starts on time; a round that
// overran its hour is followed at once by the next.
func (c *Crawler) Loop(ctx context.Context, cadence time.Duration) error {
	c.cadence = cadence
	for {
		started := c.Clock.Now()
		if err := c.Once(ctx); err != nil && ctx.Err() == nil {
			c.log().Warn("run round failed", "err", err)
		}
		if err := c.Clock.Sleep(ctx, started.Add(cadence).Sub(c.Clock.Now())); err != nil || ctx.Err() != nil {
			return nil // cancelled: a clean stop
		}
	}
}
