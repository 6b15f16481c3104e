package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
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
	// One pass over each table counts each of its kinds: the rows of a
	// live source that some kind holds for, by kind. The times are those
	// FeedsDue and SitemapsDue are asked at: now, FEED_INTERVAL,
	// DISALLOWED_RECHECK and SITEMAP_INTERVAL ago.
	at, feedBefore, disallowedBefore, sitemapBefore := ts(now), ts(now.Add(-ds.FeedInterval)), ts(now.Add(-ds.DisallowedRecheck)), ts(now.Add(-ds.SitemapInterval))
	tables := []struct {
		from, live string
		kinds      []string
		conds      []string
		args       []any
	}{
		{"sources s", sourceLive("s"), []string{DueDiscovery, DueSitemapDiscovery},
			[]string{discoveryDue("s", "$1"), sitemapDiscoveryDue("s", "$1")}, []any{at}},
		{"feeds f", itemLive("f"), []string{DueFeed, DueCatalogue},
			[]string{`(` + feedToRead("f", "$1") + ` OR ` + feedPollDue("f", "$1", "$2", "$3") + `)`, catalogueDue("f", "$1")},
			[]any{at, feedBefore, disallowedBefore}},
		{"sitemaps m", itemLive("m"), []string{DueSitemap}, []string{sitemapDue("m", "$1", "$2")}, []any{at, sitemapBefore}},
		{"posts p", itemLive("p"), []string{DuePage}, []string{pageDue("p", "$1")}, []any{at}},
	}
	due = map[string]int64{}
	for _, t := range tables {
		sums := make([]string, len(t.conds))
		for i, c := range t.conds {
			sums[i] = `COALESCE(SUM(CASE WHEN ` + c + ` THEN 1 ELSE 0 END), 0)`
		}
		counts := make([]int64, len(t.kinds))
		dest := make([]any, len(t.kinds))
		for i := range counts {
			dest[i] = &counts[i]
		}
		q := `SELECT ` + strings.Join(sums, `, `) + ` FROM ` + t.from + ` WHERE ` + t.live + ` AND (` + strings.Join(t.conds, ` OR `) + `)`
		if err := d.r.QueryRowContext(ctx, q, t.args...).Scan(dest...); err != nil {
			return nil, nil, fmt.Errorf("work due in %s: %w", t.from, err)
		}
		for i, k := range t.kinds {
			due[k] = counts[i]
		}
	}
	return posts, due, nil
}
