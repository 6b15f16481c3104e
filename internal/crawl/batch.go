package crawl

import (
	"context"

	"corpus.blog/corpusbot/internal/store"
)

// The batch commands. Each chooses up to limit items of its kind, the most
// overdue first, and works them as one round of the frontier limited to
// them: their sites checked out as `run` checks them out, each site's work
// in the one order of siteSteps, only the steps the command names, only
// the chosen items and the sources they belong to. Each reports how many
// items it chose.

// selection is what a batch command's round is limited to: the sources
// whose work it does and, of the feeds and sitemaps, the ones it chose
// (a nil set: whatever of that kind the step finds due).
type selection struct {
	sources  map[int64]bool
	feeds    map[int64]bool
	sitemaps map[int64]bool
}

// DiscoverSources is the discovery that `articles fetch` does first: up to
// limit sources never discovered (robots.txt, homepage, feeds).
func (c *Crawler) DiscoverSources(ctx context.Context, limit int) (int, error) {
	var srcs []store.Source
	err := c.retryStore(ctx, func() (err error) {
		srcs, err = c.Store.SourcesToDiscover(ctx, c.Clock.Now(), limit)
		return err
	})
	if err != nil || len(srcs) == 0 {
		return 0, err
	}
	return len(srcs), c.batchOfSources(ctx, srcs, stepDiscover)
}

// FetchArticles is `articles fetch --limit N`: the N feeds most overdue
// (their schedule's next read passed; errored ones after FEED_INTERVAL,
// disallowed ones after a week) are read, page one only, each followed by
// its catalogue walk when that is due; then the pages their sources owe.
func (c *Crawler) FetchArticles(ctx context.Context, limit int) (int, error) {
	if err := c.calibrate(ctx); err != nil {
		c.Log.Warn("schedule not recalibrated", "err", err) // the last one stays in force
	}
	var feeds []store.Feed
	err := c.retryStore(ctx, func() (err error) {
		now := c.Clock.Now()
		feeds, err = c.Store.FeedsDue(ctx, now, now.Add(-c.Settings.FeedInterval), now.Add(-c.Settings.DisallowedRecheck), limit)
		return err
	})
	if err != nil || len(feeds) == 0 {
		return 0, err
	}
	sel := selection{sources: map[int64]bool{}, feeds: map[int64]bool{}}
	r := c.batchRound(stepFeeds|stepPages, &sel)
	var order []int64 // the sources, most overdue feed first
	for _, f := range feeds {
		if !sel.sources[f.SourceID] {
			order = append(order, f.SourceID)
		}
		sel.sources[f.SourceID], sel.feeds[f.ID] = true, true
		r.polls[f.SourceID] = append(r.polls[f.SourceID], f)
	}
	if err := c.offerSitesWaiting(ctx, r, order); err != nil {
		return 0, err
	}
	return len(feeds), c.runBatch(ctx, r)
}

// DiscoverSitemapsBatch is `sitemaps discover [--truncated] --limit N`.
func (c *Crawler) DiscoverSitemapsBatch(ctx context.Context, truncated bool, limit int) (int, error) {
	var srcs []store.Source
	err := c.retryStore(ctx, func() (err error) {
		srcs, err = c.Store.SourcesForSitemaps(ctx, truncated, c.Clock.Now(), limit)
		return err
	})
	if err != nil || len(srcs) == 0 {
		return 0, err
	}
	return len(srcs), c.batchOfSources(ctx, srcs, stepSitemapDiscovery)
}

// FetchSitemaps is `sitemaps fetch [--truncated] --limit N`: up to N
// sitemaps not read for SITEMAP_INTERVAL, then the pages their sources owe.
func (c *Crawler) FetchSitemaps(ctx context.Context, truncated bool, limit int) (int, error) {
	var sms []store.Sitemap
	err := c.retryStore(ctx, func() (err error) {
		now := c.Clock.Now()
		sms, err = c.Store.SitemapsDue(ctx, now, now.Add(-c.Settings.SitemapInterval), truncated, limit)
		return err
	})
	if err != nil || len(sms) == 0 {
		return 0, err
	}
	sel := selection{sources: map[int64]bool{}, sitemaps: map[int64]bool{}}
	var order []int64 // the sources, least recently read sitemap first
	for _, sm := range sms {
		if !sel.sources[sm.SourceID] {
			order = append(order, sm.SourceID)
		}
		sel.sources[sm.SourceID], sel.sitemaps[sm.ID] = true, true
	}
	r := c.batchRound(stepSitemaps|stepPages, &sel)
	if err := c.offerSitesWaiting(ctx, r, order); err != nil {
		return 0, err
	}
	return len(sms), c.runBatch(ctx, r)
}

// batchOfSources works the given step of the chosen sources.
func (c *Crawler) batchOfSources(ctx context.Context, srcs []store.Source, steps step) error {
	sel := selection{sources: map[int64]bool{}}
	var sites []string
	seen := map[string]bool{}
	for _, s := range srcs {
		sel.sources[s.ID] = true
		if !seen[s.Site] {
			seen[s.Site] = true
			sites = append(sites, s.Site)
		}
	}
	r := c.batchRound(steps, &sel)
	r.sites = sites
	return c.runBatch(ctx, r)
}

// offerSitesWaiting is offerSites, waiting for a store that failed its
// queries (retryStore).
func (c *Crawler) offerSitesWaiting(ctx context.Context, r *round, sourceIDs []int64) error {
	return c.retryStore(ctx, func() error {
		r.sites = nil
		return c.offerSites(ctx, r, sourceIDs)
	})
}

// offerSites sets the round's sites: those of the given sources, in the
// order first named.
func (c *Crawler) offerSites(ctx context.Context, r *round, sourceIDs []int64) error {
	seen := map[string]bool{}
	for _, id := range sourceIDs {
		src, err := c.Store.Source(ctx, id)
		if err != nil {
			return err
		}
		if !seen[src.Site] {
			seen[src.Site] = true
			r.sites = append(r.sites, src.Site)
		}
	}
	return nil
}

// runBatch runs a batch command's round to its end.
func (c *Crawler) runBatch(ctx context.Context, r *round) error {
	defer c.flushRequests(context.WithoutCancel(ctx))
	c.startRound(ctx, r, len(r.sites))
	return c.frontier(ctx, r, 0)
}
