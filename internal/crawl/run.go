package crawl

import (
	"context"
	"errors"
	"time"
)

// batch is how many items one step of a run takes at a time.
const batch = 1000

// Once does all the work that is due, step by step until each is idle:
// discovery of new sources, feed polls, catalogue walks, sitemap discovery
// and reads, then the pages still owed. It returns when nothing is due or
// ctx ends.
func (c *Crawler) Once(ctx context.Context) error {
	defer c.flushRequests(ctx) // the run's requests are in the log when it returns
	var errs []error
	unbounded := func() int { return batch }
	feedsLeft := c.feedBudget() // FEED_BUDGET an hour
	steps := []struct {
		name  string
		limit func() int // how many the next call may take; 0 ends the step
		fn    func(ctx context.Context, limit int) (int, error)
	}{
		{"discover", unbounded, c.DiscoverSources},
		{"feeds", func() int { return min(batch, feedsLeft) }, func(ctx context.Context, limit int) (int, error) {
			n, err := c.FetchArticles(ctx, limit)
			feedsLeft -= n
			return n, err
		}},
		{"websub", unbounded, c.PushSubscriptions},
		{"catalogues", unbounded, c.WalkCatalogues},
		{"sitemaps discover", unbounded, func(ctx context.Context, limit int) (int, error) { return c.DiscoverSitemapsBatch(ctx, false, limit) }},
		{"sitemaps fetch", unbounded, func(ctx context.Context, limit int) (int, error) { return c.FetchSitemaps(ctx, false, limit) }},
		{"pages", unbounded, c.FetchPages},
	}
	for _, s := range steps {
		// A step repeats while it fills its batch, but never more than a
		// few rounds: an item that fails stays due and must not spin the run.
		for round := 0; round < 100; round++ {
			limit := s.limit()
			if limit <= 0 {
				break
			}
			n, err := s.fn(ctx, limit)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				errs = append(errs, err)
				break
			}
			if n < limit {
				break
			}
		}
		c.log().Info("step done", "step", s.name)
	}
	return errors.Join(errs...)
}

// Loop starts Once every cadence (the seed's hourly runs) until ctx ends;
// a failed round is logged and the next one starts on time; a round that
// overran its hour is followed at once by the next.
func (c *Crawler) Loop(ctx context.Context, cadence time.Duration) error {
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
