package crawl

import (
	"context"
	"errors"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// The batch jobs behind the commands. Each takes a limit (how many items
// of its kind to work on) and reports how many it took.

// DiscoverSources discovers up to limit sources never discovered.
func (c *Crawler) DiscoverSources(ctx context.Context, limit int) (int, error) {
	srcs, err := c.Store.SourcesToDiscover(ctx, c.Clock.Now(), limit)
	if err != nil || len(srcs) == 0 {
		return 0, err
	}
	return len(srcs), perSite(ctx, c, srcs, func(s store.Source) string { return s.URL }, c.Discover)
}

// FetchArticles is `articles fetch --limit N`: the N feeds most overdue
// (their schedule's next read passed; errored ones after FEED_INTERVAL,
// disallowed ones after a week) are read, page one only; then each feed's
// catalogue walk if it is not done, then the pages its new and modified
// entries owe.
func (c *Crawler) FetchArticles(ctx context.Context, limit int) (int, error) {
	if err := c.calibrate(ctx); err != nil {
		c.log().Warn("schedule not recalibrated", "err", err) // the last one stays in force
	}
	now := c.Clock.Now()
	feeds, err := c.Store.FeedsDue(ctx, now, now.Add(-c.Settings.FeedInterval), now.Add(-c.Settings.DisallowedRecheck), limit)
	if err != nil || len(feeds) == 0 {
		return 0, err
	}
	err = perSite(ctx, c, feeds, func(f store.Feed) string { return f.URL }, func(ctx context.Context, f store.Feed) error {
		if err := c.PollFeed(ctx, f); err != nil {
			return err
		}
		return c.catalogueOf(ctx, f.ID, f.SourceID)
	})
	if err != nil && ctx.Err() != nil {
		return len(feeds), err
	}
	var ids []int64
	for _, f := range feeds {
		ids = append(ids, f.SourceID)
	}
	return len(feeds), errors.Join(err, c.pagesOf(ctx, ids))
}

// catalogueOf walks the catalogue of one feed if it is due.
func (c *Crawler) catalogueOf(ctx context.Context, feedID, sourceID int64) error {
	feeds, err := c.Store.SourceFeeds(ctx, sourceID)
	if err != nil {
		return err
	}
	for _, f := range feeds {
		if f.ID == feedID && f.State == model.FeedActive && f.Catalogue != model.CatalogueDone && !f.LastRead.IsZero() {
			return c.WalkCatalogue(ctx, f)
		}
	}
	return nil
}

// DiscoverSitemapsBatch is `sitemaps discover [--truncated] --limit N`.
func (c *Crawler) DiscoverSitemapsBatch(ctx context.Context, truncated bool, limit int) (int, error) {
	srcs, err := c.Store.SourcesForSitemaps(ctx, truncated, c.Clock.Now(), limit)
	if err != nil || len(srcs) == 0 {
		return 0, err
	}
	return len(srcs), perSite(ctx, c, srcs, func(s store.Source) string { return s.URL }, c.DiscoverSitemaps)
}

// FetchSitemaps is `sitemaps fetch [--truncated] --limit N`: up to N
// sitemaps not read for SITEMAP_INTERVAL, then the pages they made due.
func (c *Crawler) FetchSitemaps(ctx context.Context, truncated bool, limit int) (int, error) {
	now := c.Clock.Now()
	sms, err := c.Store.SitemapsDue(ctx, now, now.Add(-c.Settings.SitemapInterval), truncated, limit)
	if err != nil || len(sms) == 0 {
		return 0, err
	}
	err = perSite(ctx, c, sms, func(s store.Sitemap) string { return s.URL }, c.ReadSitemap)
	if err != nil && ctx.Err() != nil {
		return len(sms), err
	}
	var ids []int64
	for _, sm := range sms {
		ids = append(ids, sm.SourceID)
	}
	return len(sms), errors.Join(err, c.pagesOf(ctx, ids))
}

// pagesPerVisit bounds the pages fetched for one source after one feed or
// sitemap read; the rest are fetched by later runs.
const pagesPerVisit = 1000

// pagesOf fetches the pages the given sources owe. They are gathered
// first and then grouped by the site of each page, not of the feed or
// sitemap that named them (a feed hosted elsewhere, a sitemap on a CDN), so
// that no page is ever handed to two workers.
func (c *Crawler) pagesOf(ctx context.Context, sourceIDs []int64) error {
	seen := map[int64]bool{}
	var posts []store.Post
	for _, id := range sourceIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		due, err := c.Store.PostsDue(ctx, id, c.Clock.Now(), pagesPerVisit)
		if err != nil {
			return err
		}
		posts = append(posts, due...)
	}
	return perSite(ctx, c, posts, func(p store.Post) string { return p.URL }, c.FetchPage)
}
