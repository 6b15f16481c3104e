package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// The frontier's first question (package crawl, frontier.go): which sites
// have work due, to be checked out to one worker at a time (checkouts.go);
// a site's own due work is sitework.go's. Every item of work belongs to
// one source and every source to one site, so a site's checkout is all
// that keeps two workers from the same item: the queries only read.

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
