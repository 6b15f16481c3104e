package crawl

import (
	"context"
	"fmt"
	"io"
	"net/url"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/sitemap"
	"corpus.blog/corpusbot/internal/store"
)

// maxIndexDepth bounds sitemap indexes listing indexes.
const maxIndexDepth = 2

// ReadSitemap reads a sitemap conditionally. A urlset's URLs are diffed
// against the last read (store.IngestSitemap: new, modified by lastmod,
// removed when the read was whole). An index records its children's
// lastmods and reads, newest first, only the children never read or whose
// lastmod advanced since they were.
func (c *Crawler) ReadSitemap(ctx context.Context, sm store.Sitemap) error {
	return c.readSitemap(ctx, sm, 0)
}

func (c *Crawler) readSitemap(ctx context.Context, sm store.Sitemap, depth int) error {
	var (
		urls []store.SitemapURL
		kids []store.Sitemap
		sum  sitemap.Summary
		perr error
	)
	// The body is parsed as it arrives, under the sitemap protocol's limits
	// (50,000 entries, 50 MB uncompressed), never held whole.
	read := func(finalURL string, body io.Reader) {
		base, _ := url.Parse(finalURL)
		sum, perr = sitemap.Read(body, sitemap.Options{Base: base}, func(e sitemap.Entry) error {
			if e.Type == sitemap.Sitemap {
				kids = append(kids, store.Sitemap{SourceID: sm.SourceID, URL: e.Loc, Via: sm.Via, ParentID: sm.ID, Lastmod: e.Lastmod})
				return nil
			}
			urls = append(urls, store.SitemapURL{Loc: e.Loc, Lastmod: e.Lastmod})
			return nil
		})
	}
	res := c.fetch(ctx, fetch.Request{URL: sm.URL, Purpose: fetch.PurposeSitemap, ETag: sm.ETag, LastModified: sm.LastModified, Stream: read})
	if err := ctx.Err(); err != nil {
		return err
	}
	now := c.Clock.Now()
	switch res.Outcome {
	case fetch.OutcomeUnchanged:
		sm.State, sm.Error, sm.LastRead, sm.ReadLastmod = "active", "", now, sm.Lastmod
		return c.Store.UpdateSitemap(ctx, sm)
	case fetch.OutcomeFetched:
	default:
		// What the parser took before the body failed is dropped with it.
		sm.State, sm.Error, sm.LastRead = "error", errText(res), now
		if res.Outcome == fetch.OutcomeDisallowed {
			sm.State = "disallowed"
		}
		return c.Store.UpdateSitemap(ctx, sm)
	}
	if perr != nil {
		sm.State, sm.Error, sm.LastRead = "error", perr.Error(), now
		return c.Store.UpdateSitemap(ctx, sm)
	}
	if sum.Truncated {
		// Kept as far as the cut; the read is not whole, so nothing it
		// did not reach is taken as removed.
		c.log().Warn("sitemap truncated", "sitemap", sm.URL, "reason", sum.Reason, "entries", sum.Entries())
	}
	if len(urls) > 0 || sum.Format != sitemap.FormatIndex {
		diff, err := c.Store.IngestSitemap(ctx, sm, urls, sum.Whole())
		if err != nil {
			return fmt.Errorf("sitemap %s: %w", sm.URL, err)
		}
		c.log().Info("sitemap read", "sitemap", sm.URL, "urls", len(urls), "new", diff.New, "modified", diff.Modified,
			"removed", diff.Removed, "returned", diff.Returned, "whole", sum.Whole())
	}
	for _, k := range kids {
		if _, err := c.Store.AddSitemap(ctx, k); err != nil {
			return err
		}
	}
	if len(kids) > 0 && depth < maxIndexDepth {
		if err := c.readChildren(ctx, sm, depth); err != nil {
			return err
		}
	}
	sm.State, sm.Error, sm.LastRead, sm.ETag, sm.LastModified, sm.ReadLastmod = "active", "", now, res.ETag, res.LastModified, sm.Lastmod
	return c.Store.UpdateSitemap(ctx, sm)
}

// readChildren reads an index's children newest lastmod first, skipping
// those read since their lastmod last advanced (a child without a lastmod
// is read when SITEMAP_INTERVAL has passed since its last read).
func (c *Crawler) readChildren(ctx context.Context, parent store.Sitemap, depth int) error {
	kids, err := c.Store.ChildSitemaps(ctx, parent.ID)
	if err != nil {
		return err
	}
	for _, k := range kids {
		due := k.LastRead.IsZero() || k.Lastmod.After(k.ReadLastmod) ||
			(k.Lastmod.IsZero() && c.Clock.Now().Sub(k.LastRead) >= c.Settings.SitemapInterval)
		if !due {
			continue
		}
		if err := c.readSitemap(ctx, k, depth+1); err != nil {
			return err
		}
	}
	return nil
}
