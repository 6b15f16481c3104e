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
	var errs []error
	feedsLeft := c.feedBudget() // FEED_BUDGET an hour
	steps := []struct {
		name string
		fn   func(context.Context) (int, error)
	}{
		{"discover", func(ctx context.Context) (int, error) { return c.DiscoverSources(ctx, batch) }},
		{"feeds", func(ctx context.Context) (int, error) {
			if feedsLeft <= 0 {
				return 0, nil
			}
			n, err := c.FetchArticles(ctx, min(batch, feedsLeft))
			if feedsLeft -= n; feedsLeft <= 0 {
				n = min(n, batch-1) // the budget is spent: the step ends
			}
			return n, err
		}},
		{"websub", func(ctx context.Context) (int, error) { return c.PushSubscriptions(ctx, batch) }},
		{"catalogues", func(ctx context.Context) (int, error) { return c.WalkCatalogues(ctx, batch) }},
		{"sitemaps discover", func(ctx context.Context) (int, error) { return c.DiscoverSitemapsBatch(ctx, false, batch) }},
		{"sitemaps fetch", func(ctx context.Context) (int, error) { return c.FetchSitemaps(ctx, false, batch) }},
		{"pages", func(ctx context.Context) (int, error) { return c.FetchPages(ctx, batch) }},
	}
	for _, s := range steps {
		// A step repeats while it finds work, but never more than a few
		// rounds: an item that fails stays due and must not spin the run.
		for round := 0; round < 100; round++ {
			n, err := s.fn(ctx)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				errs = append(errs, err)
				break
			}
			if n < batch {
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
