package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Due kinds, the label values of the metrics' work-due gauge: each counts
// what the crawler would do now of that kind, by the conditions of due.go
// (retries waited for, paused sources left out), so the gauge and the
// crawl agree on what "due" is.
const (
	DueDiscovery        = "discovery"         // sources to discover (SourcesToDiscover)
	DueSitemapDiscovery = "sitemap_discovery" // sources to look for sitemaps on (SourcesForSitemaps)
	DueFeed             = "feed"              // feeds to read: a first read or a retry (FeedsToRead), or a re-read by standing (FeedsDue)
	DueCatalogue        = "catalogue"         // catalogue walks to start or resume (CataloguesDue)
	DueSitemap          = "sitemap"           // sitemaps to read (SitemapsDue)
	DuePage             = "page"              // posts owed a page fetch (PostsDue)
)

// Gauges counts what the metrics sample at each scrape: posts by state,
// and the work due now by kind (the Due* kinds, every one present). ds
// gives the re-read intervals the crawler uses (FEED_INTERVAL,
// DISALLOWED_RECHECK, SITEMAP_INTERVAL).
func (d *DB) Gauges(ctx context.Context, now time.Time, ds DueSettings) (posts, due map[string]int64, err error) {
	posts = map[string]int64{}
	err = d.each(ctx, d.r, `SELECT state, COUNT(*) FROM posts GROUP BY state`, nil, func(rows *sql.Rows) error {
		var state string
		var n int64
		err := rows.Scan(&state, &n)
		posts[state] = n
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("posts by state: %w", err)
	}
	// $1 now, $2 FEED_INTERVAL ago, $3 DISALLOWED_RECHECK ago, $4
	// SITEMAP_INTERVAL ago: the times FeedsDue and SitemapsDue are asked at.
	kinds := []struct{ kind, count string }{
		{DueDiscovery, `SELECT COUNT(*) FROM sources s WHERE ` + discoveryDue("s", "$1") + ` AND ` + sourceLive("s")},
		{DueSitemapDiscovery, `SELECT COUNT(*) FROM sources s WHERE ` + sitemapDiscoveryDue("s", "$1") + ` AND ` + sourceLive("s")},
		{DueFeed, `SELECT COUNT(*) FROM feeds f WHERE (` + feedToRead("f", "$1") + ` OR ` + feedPollDue("f", "$1", "$2", "$3") + `) AND ` + itemLive("f")},
		{DueCatalogue, `SELECT COUNT(*) FROM feeds f WHERE ` + catalogueDue("f", "$1") + ` AND ` + itemLive("f")},
		{DueSitemap, `SELECT COUNT(*) FROM sitemaps m WHERE ` + sitemapDue("m", "$1", "$4") + ` AND ` + itemLive("m")},
		{DuePage, `SELECT COUNT(*) FROM posts p WHERE ` + pageDue("p", "$1") + ` AND ` + itemLive("p")},
	}
	q := `SELECT `
	for i, k := range kinds {
		if i > 0 {
			q += `, `
		}
		q += `(` + k.count + `)`
	}
	counts := make([]int64, len(kinds))
	dest := make([]any, len(kinds))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := d.r.QueryRowContext(ctx, q, ts(now), ts(now.Add(-ds.FeedInterval)), ts(now.Add(-ds.DisallowedRecheck)), ts(now.Add(-ds.SitemapInterval))).Scan(dest...); err != nil {
		return nil, nil, fmt.Errorf("work due: %w", err)
	}
	due = make(map[string]int64, len(kinds))
	for i, k := range kinds {
		due[k.kind] = counts[i]
	}
	return posts, due, nil
}
