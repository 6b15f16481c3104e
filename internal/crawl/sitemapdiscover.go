package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/sitemap"
	"corpus.blog/corpusbot/internal/store"
)

// WellKnownSitemapPaths are tried only when robots.txt names no sitemap
// (DESIGN.md, "What is fetched").
var WellKnownSitemapPaths = []string{"/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml",
	"/sitemap/sitemap.xml", "/sitemap.xml.gz", "/sitemap.txt", "/sitemaps/sitemap.xml"}

var errVerified = errors.New("verified")

// DiscoverSitemaps records a source's sitemaps: the robots.txt Sitemap:
// lines as given (any host, any path, not fetched here), or, when there are
// none, each well-known path that is verified by its content to be a
// sitemap (a 200 HTML page is not one).
func (c *Crawler) DiscoverSitemaps(ctx context.Context, src store.Source) error {
	home, err := url.Parse(src.URL)
	if err != nil {
		return fmt.Errorf("sitemaps %s: %w", src.URL, err)
	}
	e, err := c.robots(ctx, src.URL)
	if err != nil {
		return fmt.Errorf("sitemaps %s: %w", src.URL, err)
	}
	if paused(e) {
		return c.postpone(ctx, src, "robots.txt unreachable", c.Store.PostponeSitemaps)
	}
	var lines []string
	if e.Verdict.File != nil {
		lines = e.Verdict.File.Sitemaps()
	}
	for _, l := range lines {
		if _, err := c.Store.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: l, Via: store.ViaRobots}); err != nil {
			return err
		}
	}
	found, broken := len(lines), false
	if found == 0 {
		for _, p := range WellKnownSitemapPaths {
			if ctx.Err() != nil {
				break
			}
			u := home.ResolveReference(&url.URL{Path: p}).String()
			ok, failed := c.isSitemap(ctx, u)
			broken = broken || failed
			if !ok {
				continue
			}
			if _, err := c.Store.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: u, Via: store.ViaWellKnown}); err != nil {
				return err
			}
			found++
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if broken && found == 0 {
		// "No sitemap" is not concluded from a site that did not answer.
		return c.postpone(ctx, src, "well-known sitemap paths did not answer", c.Store.PostponeSitemaps)
	}
	c.log().Info("sitemaps discovered", "source", src.URL, "sitemaps", found)
	return c.Store.MarkSitemapsChecked(ctx, src.ID, c.Clock.Now())
}

// isSitemap fetches u and reads it as far as its first entry, which is all
// that is downloaded of it; failed says the site gave no answer to judge by.
func (c *Crawler) isSitemap(ctx context.Context, u string) (ok, failedFetch bool) {
	var err error
	read := func(finalURL string, body io.Reader) {
		base, _ := url.Parse(finalURL)
		_, err = sitemap.Read(body, sitemap.Options{Base: base}, func(sitemap.Entry) error { return errVerified })
	}
	res := c.fetch(ctx, fetch.Request{URL: u, Purpose: fetch.PurposeSitemap, Stream: read})
	if res.Outcome != fetch.OutcomeFetched {
		return false, failed(res)
	}
	return err == nil || errors.Is(err, errVerified), false
}
