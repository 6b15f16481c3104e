package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The frontier's questions (package crawl, frontier.go): which sites have
// work due, checked out to one worker at a time; and, for one site, the
// due work of each of its sources. A site's checkout is a row of
// site_checkouts held by one worker until claimed_until, renewed and
// released with the item checkouts (checkouts.go); the item checkouts still apply
// inside a checked-out site, so the batch commands (articles fetch,
// sitemaps fetch) running on another worker never take the same item. (On
// SQLite there is no other worker: its batches are read, SetSoleWorker.)

// dueSource is the condition that a source (alias s) has work due at the
// time placeholder now, its sitemaps last read before smBefore: discovery,
// sitemap discovery, a feed never tried or whose retry is due, a catalogue
// walk not done, a sitemap to read (never one recorded as skipped), a page
// owed — each once any retry it waits for is due. Feeds due for a re-read
// are not in it: they are chosen round by round under FEED_BUDGET
// (PollsDue) and handed to the frontier apart.
func dueSource(now, smBefore string) string {
	return `s.paused = 0 AND (
	(s.discovered = 0 AND s.discover_after <= ` + now + `)
	OR (s.discovered <> 0 AND s.sitemaps_checked = 0 AND s.sitemaps_after <= ` + now + `)
	OR EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id AND f.state = ` + sqlFeedActive + ` AND f.retry_at <= ` + now + `
		AND (f.checked = 0 OR f.attempts > 0 OR (f.catalogue <> ` + sqlCatalogueDone + ` AND f.last_read <> 0)))
	OR EXISTS (SELECT 1 FROM sitemaps m WHERE m.source_id = s.id
		AND ((m.parent_id = 0 AND m.last_read < ` + smBefore + `) OR m.attempts > 0) AND m.retry_at <= ` + now + `
		AND m.state <> ` + sqlSitemapSkipped + `)
	OR EXISTS (SELECT 1 FROM posts p WHERE p.source_id = s.id AND p.due = 1 AND p.retry_at <= ` + now + `))`
}

// siteFree is the condition that the site of source s is not checked out
// by another live worker ($1 the owner, $7 now by the checkouts' clock) and
// was not finished in round $4.
const siteFree = `NOT EXISTS (SELECT 1 FROM site_checkouts c WHERE c.site = s.site
	AND ((c.claimed_by <> $1 AND c.claimed_until >= $7) OR c.round = $4))`

// notWaiting is the condition that the site of source s has no stored
// wait reaching the placeholder before (SiteQuery.WaitBefore).
func notWaiting(before string) string {
	return `NOT EXISTS (SELECT 1 FROM site_waits w WHERE w.site = s.site AND w.next >= ` + before + `)`
}

// DueSites lists sources with work due (q.After excluded, in ID order)
// whose site is neither checked out by another live worker nor finished in
// q.Round. Due work is discovery, sitemap discovery, a feed never tried, a
// catalogue walk not done, a sitemap to read and a page owed; feeds due for
// a re-read are chosen apart (PollsDue).
func (d *DB) DueSites(ctx context.Context, q SiteQuery, limit int) ([]DueSite, error) {
	if q.Round == "" {
		return nil, errors.New("due sites: no round")
	}
	owner, now, _ := d.checkouts.stamp()
	var out []DueSite
	err := d.each(ctx, d.r, `SELECT s.id, s.site FROM sources s WHERE s.id > $5 AND `+dueSource("$2", "$3")+` AND `+siteFree+`
		AND `+notWaiting("$8")+` ORDER BY s.id LIMIT $6`, []any{owner, ts(q.Now), ts(q.SitemapsBefore), q.Round, q.After, limit, now, q.waitBefore()}, func(rows *sql.Rows) error {
		var s DueSite
		err := rows.Scan(&s.SourceID, &s.Site)
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("due sites: %w", err)
	}
	return out, nil
}

// DueSitesHeld counts sites with work due that other live workers have
// checked out (and not finished in q.Round).
func (d *DB) DueSitesHeld(ctx context.Context, q SiteQuery) (int, error) {
	owner, now, _ := d.checkouts.stamp()
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT s.site) FROM sources s WHERE `+dueSource("$2", "$3")+`
		AND EXISTS (SELECT 1 FROM site_checkouts c WHERE c.site = s.site AND c.claimed_by <> $1 AND c.claimed_until >= $5 AND c.round <> $4)
		AND `+notWaiting("$6"),
		owner, ts(q.Now), ts(q.SitemapsBefore), q.Round, now, q.waitBefore()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("due sites held by other workers: %w", err)
	}
	return n, nil
}

// CountDueSites counts the sites with work due, whoever holds them.
func (d *DB) CountDueSites(ctx context.Context, q SiteQuery) (int, error) {
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT s.site) FROM sources s WHERE `+dueSource("$1", "$2")+` AND `+notWaiting("$3"),
		ts(q.Now), ts(q.SitemapsBefore), q.waitBefore()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count due sites: %w", err)
	}
	return n, nil
}

// CheckOutSites checks out to this worker those of sites that are free
// (not checked out by another live worker, not finished in round) and
// returns them; a checkout lasts as long as the item checkouts and is
// renewed with them.
func (d *DB) CheckOutSites(ctx context.Context, round string, sites []string) ([]string, error) {
	owner, now, until := d.checkouts.stamp()
	var out []string
	err := d.tx(ctx, func(tx conn) error {
		out = out[:0]
		for _, site := range sites {
			var got string
			err := tx.QueryRowContext(ctx, `INSERT INTO site_checkouts(site, claimed_by, claimed_until) VALUES ($1, $2, $3)
				ON CONFLICT(site) DO UPDATE SET claimed_by = $2, claimed_until = $3
				WHERE (site_checkouts.claimed_by = $2 OR site_checkouts.claimed_until < $4) AND site_checkouts.round <> $5
				RETURNING site`, site, owner, until, now, round).Scan(&got)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				continue // another worker's, or finished in this round
			case err != nil:
				return fmt.Errorf("check out site %s: %w", site, err)
			}
			out = append(out, got)
		}
		return nil
	})
	return out, err
}

// CheckInSite gives a checked-out site back: finished in round, or, with
// round "", unfinished (any worker may take it up at once).
func (d *DB) CheckInSite(ctx context.Context, site, round string) error {
	owner, _, _ := d.checkouts.stamp()
	return d.tx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `UPDATE site_checkouts SET claimed_until = 0,
			round = CASE WHEN $3 <> '' THEN $3 ELSE round END WHERE site = $1 AND claimed_by = $2`, site, owner, round)
		if err != nil {
			return fmt.Errorf("check in site %s: %w", site, err)
		}
		return nil
	})
}

// SiteSources lists the site's sources that are not paused, by ID.
func (d *DB) SiteSources(ctx context.Context, site string) ([]Source, error) {
	out, err := d.sources(ctx, d.r, `SELECT `+sourceCols+` FROM sources WHERE site = $1 AND paused = 0 ORDER BY id`, site)
	if err != nil {
		return nil, fmt.Errorf("sources of %s: %w", site, err)
	}
	return out, nil
}

// CheckOutSource checks out one source (for its discovery or sitemap
// discovery) unless another worker holds it or it is paused;
// MarkDiscovered, PostponeDiscovery, MarkSitemapsChecked and
// PostponeSitemaps release it.
func (d *DB) CheckOutSource(ctx context.Context, id int64) (Source, bool, error) {
	out, err := d.checkOutSources(ctx, `SELECT id FROM sources WHERE id = $4 AND paused = 0 AND `+notCheckedOut, id)
	if err != nil {
		return Source{}, false, fmt.Errorf("check out source %d: %w", id, err)
	}
	if len(out) == 0 {
		return Source{}, false, nil
	}
	return out[0], true, nil
}

// FeedsToRead lists and checks out a source's active feeds never tried,
// and those whose last read failed with a fault that says "try later" once
// their retry is due at now.
func (d *DB) FeedsToRead(ctx context.Context, sourceID int64, now time.Time) ([]Feed, error) {
	return d.checkOutFeeds(ctx, `SELECT id FROM feeds WHERE source_id = $4 AND state = `+sqlFeedActive+` AND (checked = 0 OR attempts > 0)
		AND retry_at <= $5 AND `+notCheckedOut+notPaused+` ORDER BY id`, func(a, b Feed) int { return cmp.Compare(a.ID, b.ID) }, sourceID, ts(now))
}

// SourceCataloguesDue is CataloguesDue for one source.
func (d *DB) SourceCataloguesDue(ctx context.Context, sourceID int64, now time.Time) ([]Feed, error) {
	return d.checkOutFeeds(ctx, `SELECT id FROM feeds WHERE source_id = $4 AND catalogue IN `+sqlCatalogueUnfinished+`
		AND state = `+sqlFeedActive+` AND last_read <> 0 AND retry_at <= $5 AND `+notCheckedOut+notPaused+` ORDER BY id`,
		func(a, b Feed) int { return cmp.Compare(a.ID, b.ID) }, sourceID, ts(now))
}

// SourceSitemapsDue is SitemapsDue for one source: its sitemaps not read for
// SITEMAP_INTERVAL, and those of its index children whose retry is due;
// never one recorded as skipped.
func (d *DB) SourceSitemapsDue(ctx context.Context, sourceID int64, now, before time.Time) ([]Sitemap, error) {
	out, err := d.checkOutSitemaps(ctx, `SELECT id FROM sitemaps WHERE source_id = $4
		AND ((parent_id = 0 AND last_read < $5) OR attempts > 0) AND retry_at <= $6`+notSkipped+` AND `+notCheckedOut+notPaused+` ORDER BY last_read, id`,
		sourceID, ts(before), ts(now))
	if err != nil {
		return nil, fmt.Errorf("sitemaps due of source %d: %w", sourceID, err)
	}
	return out, nil
}

// SiteRetryAt is the soonest retry after now that the site's items wait for
// (a page, a feed, a catalogue page, a sitemap, a discovery), of its sources
// not paused, and false when none waits.
func (d *DB) SiteRetryAt(ctx context.Context, site string, now time.Time) (time.Time, bool, error) {
	var at sql.NullInt64
	err := d.lookup.QueryRowContext(ctx, `SELECT MIN(t) FROM (
		SELECT s.discover_after AS t FROM sources s WHERE s.site = $1 AND s.paused = 0 AND +s.discovered = 0 AND s.discover_after > $2
		UNION ALL SELECT s.sitemaps_after FROM sources s WHERE s.site = $1 AND s.paused = 0 AND s.discovered <> 0
			AND s.sitemaps_checked = 0 AND s.sitemaps_after > $2
		UNION ALL SELECT f.retry_at FROM sources s CROSS JOIN feeds f
			WHERE f.source_id = s.id AND s.site = $1 AND s.paused = 0 AND f.state = `+sqlFeedActive+` AND f.retry_at > $2
		UNION ALL SELECT m.retry_at FROM sitemaps m JOIN sources s ON s.id = m.source_id
			WHERE s.site = $1 AND s.paused = 0 AND m.retry_at > $2
		UNION ALL SELECT p.retry_at FROM posts p JOIN sources s ON s.id = p.source_id
			WHERE s.site = $1 AND s.paused = 0 AND p.due = 1 AND p.retry_at > $2) r`, site, ts(now)).Scan(&at)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("retries of %s: %w", site, err)
	}
	if !at.Valid {
		return time.Time{}, false, nil
	}
	return tm(at.Int64), true, nil
}
