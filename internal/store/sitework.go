package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// A checked-out site's due work (package crawl, sitework.go): each of its
// sources with the discovery steps due for it, and its feeds, catalogue
// walks, sitemaps and pages due, each by due.go's conditions; and the
// soonest retry its items wait for. These only read: the site's checkout
// keeps other workers away from its items.

// SourceWork is a source with the discovery steps due for it, as the
// store judges them (due.go): what a site's sequence asks before taking
// each step.
type SourceWork struct {
	Source
	DiscoveryDue        bool // robots.txt, homepage and feeds to look for
	SitemapDiscoveryDue bool // sitemaps to look for
}

// sourceWorkCols are sourceCols and the two discovery conditions at $1, now.
var sourceWorkCols = sourceCols + `, ` + discoveryDue("sources", "$1") + `, ` + sitemapDiscoveryDue("sources", "$1")

func (d *DB) sourceWork(ctx context.Context, q string, args ...any) ([]SourceWork, error) {
	return collect(ctx, d, d.r, q, args, func(row interface{ Scan(...any) error }) (SourceWork, error) {
		var w SourceWork
		s, err := scanSource(scanTail{row, []any{&w.DiscoveryDue, &w.SitemapDiscoveryDue}})
		w.Source = s
		return w, err
	})
}

// SiteSources lists the site's sources that are not paused, by ID, each
// with the discovery steps due for it at now.
func (d *DB) SiteSources(ctx context.Context, site string, now time.Time) ([]SourceWork, error) {
	out, err := d.sourceWork(ctx, `SELECT `+sourceWorkCols+` FROM sources WHERE site = $2 AND `+sourceLive("sources")+` ORDER BY id`, ts(now), site)
	if err != nil {
		return nil, fmt.Errorf("sources of %s: %w", site, err)
	}
	return out, nil
}

// SourceWork reads one source with the discovery steps due for it at now;
// model.ErrNotFound when it is gone (merged into another) or paused.
func (d *DB) SourceWork(ctx context.Context, id int64, now time.Time) (SourceWork, error) {
	out, err := d.sourceWork(ctx, `SELECT `+sourceWorkCols+` FROM sources WHERE id = $2 AND `+sourceLive("sources"), ts(now), id)
	if err != nil {
		return SourceWork{}, fmt.Errorf("source %d: %w", id, err)
	}
	if len(out) == 0 {
		return SourceWork{}, fmt.Errorf("source %d: %w", id, model.ErrNotFound)
	}
	return out[0], nil
}

// FeedsToRead lists a source's feeds to read whatever the round's budget
// (feedToRead: never tried, or a retry due at now), by ID.
func (d *DB) FeedsToRead(ctx context.Context, sourceID int64, now time.Time) ([]Feed, error) {
	return d.feeds(ctx, d.r, `SELECT `+feedCols+` FROM feeds f WHERE f.source_id = $1 AND `+feedToRead("f", "$2")+` AND `+itemLive("f")+` ORDER BY f.id`,
		sourceID, ts(now))
}

// SourcePollsDue lists a source's feeds due for a read by their standing
// (feedPollDue), by ID: a round's chosen re-reads are read only if they
// still are, once their site is checked out.
func (d *DB) SourcePollsDue(ctx context.Context, sourceID int64, now, errorBefore, disallowedBefore time.Time) ([]Feed, error) {
	return d.feeds(ctx, d.r, `SELECT `+feedCols+` FROM feeds f WHERE f.source_id = $1 AND `+feedPollDue("f", "$2", "$3", "$4")+` AND `+itemLive("f")+` ORDER BY f.id`,
		sourceID, ts(now), ts(errorBefore), ts(disallowedBefore))
}

// SourceCataloguesDue is CataloguesDue for one source.
func (d *DB) SourceCataloguesDue(ctx context.Context, sourceID int64, now time.Time) ([]Feed, error) {
	return d.feeds(ctx, d.r, `SELECT `+feedCols+` FROM feeds f WHERE f.source_id = $1 AND `+catalogueDue("f", "$2")+` AND `+itemLive("f")+` ORDER BY f.id`,
		sourceID, ts(now))
}

// SourceSitemapsDue is SitemapsDue for one source (not truncated): its
// sitemaps due at now, those not read since before first.
func (d *DB) SourceSitemapsDue(ctx context.Context, sourceID int64, now, before time.Time) ([]Sitemap, error) {
	out, err := d.sitemaps(ctx, d.r, `SELECT `+sitemapCols+` FROM sitemaps m WHERE m.source_id = $1 AND `+sitemapDue("m", "$2", "$3")+` AND `+itemLive("m")+`
		ORDER BY m.last_read, m.id`, sourceID, ts(now), ts(before))
	if err != nil {
		return nil, fmt.Errorf("sitemaps due of source %d: %w", sourceID, err)
	}
	return out, nil
}

// SiteRetryAt is the soonest retry after now that the site's items wait for
// (a page, a feed, a catalogue page, a sitemap, a discovery), of its sources
// not paused, and false when none waits. The owed pages are asked source by
// source (a subquery per source), so that no planner starts from the index
// of owed pages when its statistics, taken when few were owed, make it look
// empty: at a million sites that walked every owed page for one site's.
func (d *DB) SiteRetryAt(ctx context.Context, site string, now time.Time) (time.Time, bool, error) {
	var at sql.NullInt64
	err := d.lookup.QueryRowContext(ctx, `SELECT MIN(t) FROM (
		SELECT s.discover_after AS t FROM sources s WHERE s.site = $1 AND `+sourceLive("s")+` AND `+discoveryWaits("s", "$2")+`
		UNION ALL SELECT s.sitemaps_after FROM sources s WHERE s.site = $1 AND `+sourceLive("s")+` AND `+sitemapDiscoveryWaits("s", "$2")+`
		UNION ALL SELECT f.retry_at FROM sources s CROSS JOIN feeds f
			WHERE f.source_id = s.id AND s.site = $1 AND `+sourceLive("s")+` AND `+feedWaits("f", "$2")+`
		UNION ALL SELECT m.retry_at FROM sitemaps m JOIN sources s ON s.id = m.source_id
			WHERE s.site = $1 AND `+sourceLive("s")+` AND `+sitemapWaits("m", "$2")+`
		UNION ALL SELECT (SELECT MIN(p.retry_at) FROM posts p WHERE p.source_id = s.id AND `+pageWaits("p", "$2")+`)
			FROM sources s WHERE s.site = $1 AND `+sourceLive("s")+`) r`, site, ts(now)).Scan(&at)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("retries of %s: %w", site, err)
	}
	if !at.Valid {
		return time.Time{}, false, nil
	}
	return tm(at.Int64), true, nil
}

// scanTail scans a row whose first columns one scan function reads and
// whose last ones go to tail.
type scanTail struct {
	sc   interface{ Scan(...any) error }
	tail []any
}

func (t scanTail) Scan(dest ...any) error { return t.sc.Scan(append(dest, t.tail...)...) }
