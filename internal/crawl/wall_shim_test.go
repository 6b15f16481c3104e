package crawl_test

import (
	"context"
	"time"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/store"
)

// What BenchmarkFirstPassWall needs of the crawler that the phased one
// (bfdeb9a) has differently: scripts/bench replaces this file there by
// one setting Crawler.Workers (and knowing of no due-site count).

// passLabel names the sub-benchmarks: sites worked on at once.
const passLabel = "concurrency"

// passLevels is the CONCURRENCY sweep.
func passLevels() []int { return []int{64, 256, 512, 1024, 2048} }

func sitesAtOnce(c *crawl.Crawler, n int) { c.Concurrency = n }

// sitesLeft counts the sites still owing first-pass work after a pass
// begun at began: a sitemap never read counts, one read during the pass
// does not.
func sitesLeft(ctx context.Context, db *store.DB, began time.Time) (int, error) {
	return db.CountDueSites(ctx, store.SiteQuery{Now: time.Now(), SitemapsBefore: began})
}
