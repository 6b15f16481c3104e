package crawl

import (
	"context"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sitemapclass"
	"corpus.blog/corpusbot/internal/store"
)

// Sitemaps of things that are not posts. A sitemap's name
// (sitemapclass.OfSitemap) decides whether it is fetched at all, and the
// shape of each entry of one that is read (sitemapclass.OfEntry, under
// sitemapclass.WantsPage) whether the entry is owed a page fetch:
//   - a sitemap named for posts, or named in no way the generators use
//     (unknown), is read;
//   - one named for pages, taxonomies, authors or other things (WordPress
//     core's wp-sitemap-taxonomies-category-1.xml, Yoast's
//     category-sitemap.xml, Ghost's sitemap-tags.xml...) is recorded, with
//     its kind, in state model.SitemapSkipped, and never fetched: WantsPage
//     takes none of its entries, so a read would cost the site a request
//     for nothing. The store never makes it due.
//   - of a sitemap that is read, the entries WantsPage refuses are counted
//     on its row by the kind their shape says (Sitemap.SkippedPages...),
//     not stored as posts.

// sitemapClass is what a sitemap's name says it lists, and whether the
// crawl reads it: it does when WantsPage could take one of its entries, a
// posts or an unknown sitemap.
func sitemapClass(u string) (sitemapclass.Class, bool) {
	c := sitemapclass.OfSitemap(u)
	return c, c.Kind == sitemapclass.KindPosts || c.Kind == sitemapclass.KindUnknown
}

// skipSitemap records sm as a sitemap that is never read, its name saying
// it lists class.Kind. One that was read before (by a crawler older than
// this rule) gave posts: they are withdrawn as a whole read listing
// nothing withdraws them (IngestSitemap: removed unless another sitemap
// lists them, the record and its text kept), so that no page fetch stays
// owed for a tag or author archive.
func (c *Crawler) skipSitemap(ctx context.Context, sm store.Sitemap, class sitemapclass.Class) error {
	if sm.State != model.SitemapSkipped && !sm.LastRead.IsZero() {
		diff, err := c.Store.IngestSitemap(ctx, sm, c.Clock.Now(), nil, true)
		if err != nil {
			return fmt.Errorf("sitemap %s: %w", sm.URL, err)
		}
		c.Log.Info("sitemap no longer read: its posts withdrawn", "sitemap", sm.URL, "kind", class.Kind, "removed", diff.Removed)
	}
	c.Log.Info("sitemap not read", "sitemap", sm.URL, "kind", class.Kind, "why", class.Reason)
	sm.State, sm.Kind, sm.Error, sm.Attempts, sm.RetryAt = model.SitemapSkipped, class.Kind.String(), "", 0, time.Time{}
	sm.SkippedPages, sm.SkippedTaxonomies, sm.SkippedAuthors, sm.SkippedOther = 0, 0, 0, 0
	return c.Store.UpdateSitemap(ctx, sm)
}
