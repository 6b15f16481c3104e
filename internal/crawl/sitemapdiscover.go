package crawl

import (
	"context"
	"fmt"
	"net/url"
	"slices"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// WellKnownSitemapPaths are tried only when robots.txt names no sitemap
// (DESIGN.md, "What is fetched").
var WellKnownSitemapPaths = []string{"/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml",
	"/sitemap/sitemap.xml", "/sitemap.xml.gz", "/sitemap.txt", "/sitemaps/sitemap.xml"}

// DiscoverSitemaps records a source's sitemaps: the robots.txt Sitemap:
// lines as given (any host, any path, not fetched here), or, when there are
// none, each well-known path that is verified by its content to be a
// sitemap (a 200 HTML page is not one). The fetch that verifies a
// candidate is its first read, stored as such: it is not downloaded again.
//
// A top-level sitemap is classified by its name as an index's child is
// (sitemapskip.go): a Sitemap: line naming category-sitemap.xml is
// recorded as skipped, with its kind, and never read. That is safe: a
// robots.txt that names a taxonomy sitemap alone is rare (the generators
// that write one name their index, sitemap_index.xml or wp-sitemap.xml,
// and the index is read); and such a line still counts as a sitemap found,
// so the well-known paths are not tried instead, as DESIGN.md has it. No
// well-known path is named like a sitemap of no posts; one that were would
// not be tried, as only fetching it could verify it.
func (c *Crawler) DiscoverSitemaps(ctx context.Context, src store.Source) error {
	home, err := url.Parse(src.URL)
	if err != nil {
		return fmt.Errorf("sitemaps %s: %w", src.URL, err)
	}
	e, err := c.robots(ctx, src)
	if err != nil {
		if ctx.Err() == nil && fetch.OurNetworkFailed(err) {
			// Our network reached nothing: tried again on the retry schedule.
			res := fetch.Result{Outcome: model.OutcomeError, FinalURL: src.URL, Site: src.Site, FinalSite: src.Site, Err: err}
			return c.retryDiscovery(ctx, src, src.Site, res, "robots.txt", c.Store.PostponeSitemaps)
		}
		return fmt.Errorf("sitemaps %s: %w", src.URL, err)
	}
	if paused(e) {
		return c.postpone(ctx, src, store.Retry{Attempts: src.Attempts, At: e.Expires, Error: c.robotsUnreachable(src)}, c.Store.PostponeSitemaps)
	}
	// What robots.txt and each candidate answered is stored, stop or not
	// (cutoff.go): with Sitemap: lines, the discovery is whole without
	// another request.
	sctx, done := saving(ctx)
	defer done()
	var lines []string
	if e.Verdict.File != nil {
		lines = e.Verdict.File.Sitemaps()
	}
	for _, l := range lines {
		class, read := sitemapClass(l)
		sm := store.Sitemap{SourceID: src.ID, URL: l, Via: model.ViaRobots, Kind: class.Kind.String()}
		if !read {
			sm.State = model.SitemapSkipped
			c.Log.Info("sitemap not read", "sitemap", l, "kind", class.Kind, "why", class.Reason)
		}
		if _, err := c.Store.AddSitemap(sctx, sm); err != nil {
			return err
		}
	}
	found := len(lines)
	var broken *fetch.Result // a candidate that gave no answer to judge by
	if found == 0 {
		// A candidate held and read whole already (by a discovery a stop
		// or a failure cut short) is verified: it is read on its own
		// schedule, conditionally, not asked again here unconditionally.
		held, err := c.Store.SourceSitemaps(ctx, src.ID)
		if err != nil {
			return fmt.Errorf("sitemaps %s: %w", src.URL, err)
		}
		for _, p := range WellKnownSitemapPaths {
			if ctx.Err() != nil {
				break
			}
			u := home.ResolveReference(&url.URL{Path: p}).String()
			class, read := sitemapClass(u)
			if !read {
				continue
			}
			if slices.ContainsFunc(held, func(sm store.Sitemap) bool { return sm.URL == u && !sm.LastRead.IsZero() }) {
				found++
				continue
			}
			// The candidate is recorded once its body has shown it is a
			// sitemap: at its end, or, for a long one, once a chunk of its
			// entries is read, which the store then takes as they come.
			var sm *store.Sitemap
			add := func(ctx context.Context) (*store.SitemapIngest, error) {
				got, err := c.Store.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: u, Via: model.ViaWellKnown, Kind: class.Kind.String()})
				if err != nil {
					return nil, err
				}
				sm = &got
				if !got.LastRead.IsZero() {
					return nil, nil // held already, read by its own schedule
				}
				return c.Store.SitemapIngest(got, c.Clock.Now()), nil
			}
			sink := &urlSink{kind: class.Kind, open: add, openAfter: store.SitemapChunk}
			got := c.fetchSitemap(ctx, u, "", "", sink)
			if sink.err != nil {
				return fmt.Errorf("sitemap %s: %w", u, sink.err)
			}
			if cutOff(ctx, got.res) {
				break // not verified: the next run looks again
			}
			if got.res.Outcome != model.OutcomeFetched || got.perr != nil {
				if sm != nil {
					found++ // recorded, and read again on its schedule
				}
				if failed(got.res) && broken == nil {
					broken = &got.res
				}
				continue
			}
			if sm == nil {
				if err := sink.start(sctx); err != nil {
					return fmt.Errorf("sitemap %s: %w", u, err)
				}
			}
			found++
			if !sm.LastRead.IsZero() {
				continue // held already, read by its own schedule
			}
			if err := c.storeSitemap(ctx, *sm, got, 0); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil && len(lines) == 0 {
		return err // not every well-known path asked: the next run looks again
	}
	if broken != nil && found == 0 {
		// "No sitemap" is not concluded from a site that did not answer.
		return c.retryDiscovery(ctx, src, broken.FinalSite, *broken, "well-known sitemap paths", c.Store.PostponeSitemaps)
	}
	c.Log.Info("sitemaps discovered", "source", src.URL, "sitemaps", found)
	return c.Store.MarkSitemapsChecked(sctx, src.ID, c.Clock.Now())
}
