package store

import (
	"context"
	"corpus.blog/corpusbot/internal/model"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The frontier's questions (package crawl, frontier.go): which sites have
// work due, checked out to one worker at a time; and, for one site, the
// due work of each of its sources. A site's checkout is a row of
// site_checkouts held by one worker until its expires, renewed while the
// worker lives and given back when it stops (checkouts.go). Every item of
// work belongs to one source and every source to one site, so a site's
// checkout is all that keeps two workers from the same item: the item
// queries below only read.

// dueSource is the condition that a source (alias s) has work due at the
// time placeholder now, its sitemaps last read before smBefore: discovery,
// sitemap discovery, a feed to read, a catalogue walk, a sitemap, a page
// (due.go). Feeds due for a re-read by their schedule are not in it: they
// are chosen round by round under FEED_BUDGET (PollsDue) and handed to the
// frontier apart.
func dueSource(now, smBefore string) string {
	return sourceLive("s") + ` AND (` + discoveryDue("s", now) + `
	OR ` + sitemapDiscoveryDue("s", now) + `
	OR EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id AND (` + feedToRead("f", now) + ` OR ` + catalogueDue("f", now) + `))
	OR EXISTS (SELECT 1 FROM sitemaps m WHERE m.source_id = s.id AND ` + sitemapDue("m", now, smBefore) + `)
	OR EXISTS (SELECT 1 FROM posts p WHERE p.source_id = s.id AND ` + pageDue("p", now) + `))`
}

// dueRange is one kind of due work (one term of dueSource) as the range
// of an index of its own: the IDs (sid) of the sources that have an item
// of that kind due. The frontier's sweep (DueSites) and its count
// (CountDueSites) take the union of these ranges instead of testing every
// source for every kind in turn: at a million sources a sweep that asked
// each source read every source and, to answer its EXISTS terms, every
// feed and sitemap (issue 34: plans_test.go holds them to ranges).
type dueRange struct {
	from string // the table, as x, or sources as s
	sid  string // the source's ID in it
	cond string
}

// dueRanges are dueSource's terms as ranges, at the time placeholder now,
// sitemaps last read before smBefore. Each is served by an index whose
// condition the term implies (store.Migrations: sources_discover,
// sources_sitemaps_due, feeds_to_read, feeds_catalogue_due,
// sitemaps_reread, sitemaps_retry, posts_due), in source order.
func dueRanges(now, smBefore string) []dueRange {
	return []dueRange{
		{"sources s", "s.id", discoveryDue("s", now)},
		{"sources s", "s.id", sitemapDiscoveryDue("s", now)},
		{"feeds x", "x.source_id", feedToRead("x", now)},
		{"feeds x", "x.source_id", catalogueDue("x", now)},
		{"sitemaps x", "x.source_id", sitemapRereadDue("x", now, smBefore)},
		{"sitemaps x", "x.source_id", sitemapRetryDue("x", now)},
		{"posts x", "x.source_id", pageDue("x", now)},
	}
}

// ids lists the range's source IDs, as sid.
func (r dueRange) ids() string {
	return `SELECT ` + r.sid + ` AS sid FROM ` + r.from + ` WHERE ` + r.cond
}

// first lists the first limit sources of the range after the placeholder
// after, in order, whose row (s) also meets where.
func (r dueRange) first(after, where, limit string) string {
	from := r.from
	if r.sid != "s.id" {
		from += ` JOIN sources s ON s.id = ` + r.sid
	}
	return `SELECT sid FROM (SELECT DISTINCT ` + r.sid + ` AS sid FROM ` + from + ` WHERE ` + r.cond + ` AND ` + r.sid + ` > ` + after +
		` AND ` + where + ` ORDER BY sid LIMIT ` + limit + `) r`
}

// siteFree is the condition that the site of source s is not checked out
// by another live worker ($1 the owner, $7 now by the checkouts' clock) and
// was not finished in round $4. A count rather than NOT EXISTS: a
// correlated subquery is asked per source, through the table's key, where
// an anti-join may read the whole of site_checkouts (a row for every site
// ever checked out) to spare a few lookups.
const siteFree = `(SELECT COUNT(*) FROM site_checkouts c WHERE c.site = s.site
	AND ((c.worker <> $1 AND c.expires >= $7) OR c.round = $4)) = 0`

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
//
// The first limit of each kind's range (dueRanges), each with the site
// conditions applied, hold the first limit of them all: the first limit
// of their union are the sources looked up.
func (d *DB) DueSites(ctx context.Context, q SiteQuery, limit int) ([]DueSite, error) {
	if q.Round == "" {
		return nil, errors.New("due sites: no round")
	}
	owner, now, _ := d.checkouts.stamp()
	where := sourceLive("s") + ` AND ` + siteFree + ` AND ` + notWaiting("$8")
	var firsts []string
	for _, r := range dueRanges("$2", "$3") {
		firsts = append(firsts, r.first("$5", where, "$6"))
	}
	var out []DueSite
	err := d.each(ctx, d.r, `SELECT s.id, s.site FROM sources s JOIN (SELECT DISTINCT sid FROM (`+strings.Join(firsts, `
		UNION ALL `)+`) u ORDER BY sid LIMIT $6) d ON s.id = d.sid ORDER BY s.id`, []any{owner, ts(q.Now), ts(q.SitemapsBefore), q.Round, q.After, limit, now, q.waitBefore()}, func(rows *sql.Rows) error {
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
// checked out (and not finished in q.Round): asked of the live checkouts,
// a few per worker, not of every source.
func (d *DB) DueSitesHeld(ctx context.Context, q SiteQuery) (int, error) {
	owner, now, _ := d.checkouts.stamp()
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT s.site) FROM site_checkouts c JOIN sources s ON s.site = c.site
		WHERE c.expires <> 0 AND c.worker <> $1 AND c.expires >= $5 AND c.round <> $4 AND `+dueSource("$2", "$3")+`
		AND `+notWaiting("$6"),
		owner, ts(q.Now), ts(q.SitemapsBefore), q.Round, now, q.waitBefore()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("due sites held by other workers: %w", err)
	}
	return n, nil
}

// CountDueSites counts the sites with work due, whoever holds them: the
// sources of the union of the due ranges.
func (d *DB) CountDueSites(ctx context.Context, q SiteQuery) (int, error) {
	var ids []string
	for _, r := range dueRanges("$1", "$2") {
		ids = append(ids, r.ids())
	}
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT s.site) FROM sources s WHERE s.id IN (`+strings.Join(ids, `
		UNION ALL `)+`) AND `+sourceLive("s")+` AND `+notWaiting("$3"),
		ts(q.Now), ts(q.SitemapsBefore), q.waitBefore()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count due sites: %w", err)
	}
	return n, nil
}

// Checkout is a site checked out to this worker, with what the workers
// before it left of its politeness timing (see CheckInSite): the worker
// honours it before its first request to the site.
type Checkout struct {
	Site    string
	LastEnd time.Time // when its last request ended
	Next    time.Time // its next permitted request
	// Wait is its stored back-off and Retry-After (site_waits), if any.
	Wait SiteWait
}

// SiteWait is a site's stored wait (site_waits), as fetch.SiteWait has it.
type SiteWait struct {
	Gap   time.Duration
	End   time.Time
	Until time.Time
	Next  time.Time
}

// checkOutSite takes one site for the worker $2 until $3, if it is free at
// $4 (not checked out by another live worker) and not finished in round
// $5. A checkout that lapsed in another worker's hands (it died, or lost
// its database for longer than a checkout lasts) may have had a request in
// flight until it lapsed: its last end becomes the lapse, so the site's gap
// is counted from then.
const checkOutSite = `INSERT INTO site_checkouts(site, worker, expires) VALUES ($1, $2, $3)
	ON CONFLICT(site) DO UPDATE SET worker = $2, expires = $3,
		last_end = CASE WHEN site_checkouts.worker <> $2 AND site_checkouts.expires > site_checkouts.last_end
			THEN site_checkouts.expires ELSE site_checkouts.last_end END
	WHERE (site_checkouts.worker = $2 OR site_checkouts.expires < $4) AND site_checkouts.round <> $5
	RETURNING site, last_end, next,
		COALESCE((SELECT w.gap FROM site_waits w WHERE w.site = $1), 0),
		COALESCE((SELECT w.gap_end FROM site_waits w WHERE w.site = $1), 0),
		COALESCE((SELECT w.retry_until FROM site_waits w WHERE w.site = $1), 0),
		COALESCE((SELECT w.next FROM site_waits w WHERE w.site = $1), 0)`

// CheckOutSites checks out to this worker those of sites that are free
// (not checked out by another live worker, not finished in round) and
// returns them with their timing; a checkout lasts the checkouts'
// lifetime and is renewed while the worker lives.
func (d *DB) CheckOutSites(ctx context.Context, round string, sites []string) ([]Checkout, error) {
	owner, now, until := d.checkouts.stamp()
	var out []Checkout
	err := d.tx(ctx, func(tx conn) error {
		out = out[:0]
		for _, site := range sites {
			var c Checkout
			var lastEnd, next, gap, gapEnd, retryUntil, waitNext int64
			err := tx.QueryRowContext(ctx, checkOutSite, site, owner, until, now, round).
				Scan(&c.Site, &lastEnd, &next, &gap, &gapEnd, &retryUntil, &waitNext)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				continue // another worker's, or finished in this round
			case err != nil:
				return fmt.Errorf("check out site %s: %w", site, err)
			}
			c.LastEnd, c.Next = tm(lastEnd), tm(next)
			c.Wait = SiteWait{Gap: time.Duration(gap), End: tm(gapEnd), Until: tm(retryUntil), Next: tm(waitNext)}
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// CheckInSite gives a checked-out site back: finished in round, or, with
// round "", unfinished (any worker may take it up at once). lastEnd and
// next are the site's timing as this worker leaves it (zero: unknown here),
// handed to whoever checks it out next; a later time stored stays.
func (d *DB) CheckInSite(ctx context.Context, site, round string, lastEnd, next time.Time) error {
	owner, _, _ := d.checkouts.stamp()
	return d.tx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `UPDATE site_checkouts SET expires = 0,
			round = CASE WHEN $3 <> '' THEN $3 ELSE round END,
			last_end = CASE WHEN $4 > last_end THEN $4 ELSE last_end END,
			next = CASE WHEN $5 > next THEN $5 ELSE next END
			WHERE site = $1 AND worker = $2`, site, owner, round, ts(lastEnd), ts(next))
		if err != nil {
			return fmt.Errorf("check in site %s: %w", site, err)
		}
		return nil
	})
}

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
