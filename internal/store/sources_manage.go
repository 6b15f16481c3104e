package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sourcelist"
)

// The operator's questions and changes about stored sources (sources
// list, remove, pause, resume).

// SelectedSource is a stored source as a selector found it.
type SelectedSource struct {
	ID       int64
	URL      string
	Site     string
	Paused   bool
	PausedBy string
	Removed  bool
}

const selectedCols = `id, url, site, paused, paused_by, removed`

func scanSelected(sc interface{ Scan(...any) error }) (SelectedSource, error) {
	var s SelectedSource
	var paused int
	var removed int64
	err := sc.Scan(&s.ID, &s.URL, &s.Site, &paused, &s.PausedBy, &removed)
	s.Paused, s.Removed = paused != 0, removed != 0
	return s, err
}

// SelectSources finds the sources each selector names, by URL within each
// (a site's sources) and in the selectors' order, each source once. A
// selector that names none fails the whole call with model.ErrNotFound
// (wrapped, naming it): the commands check every argument before they
// change anything.
func (d *DB) SelectSources(ctx context.Context, sels []sourcelist.Selector) ([]SelectedSource, error) {
	return selectSources(ctx, d, d.r, sels)
}

func selectSources(ctx context.Context, d *DB, c conn, sels []sourcelist.Selector) ([]SelectedSource, error) {
	var out []SelectedSource
	seen := map[int64]bool{}
	for _, sel := range sels {
		q, arg := `SELECT `+selectedCols+` FROM sources WHERE ident = $1 ORDER BY url, id`, sel.Ident
		if sel.IsSite() {
			q, arg = `SELECT `+selectedCols+` FROM sources WHERE site = $1 ORDER BY url, id`, sel.Site
		}
		found, err := collect(ctx, d, c, q, []any{arg}, scanSelected)
		if err != nil {
			return nil, fmt.Errorf("sources of %s: %w", sel.Arg, err)
		}
		if len(found) == 0 {
			what := "no source " + sel.Arg
			if sel.IsSite() {
				what = "no source of " + sel.Site
			}
			return nil, fmt.Errorf("%s: %w", what, model.ErrNotFound)
		}
		for _, s := range found {
			if !seen[s.ID] {
				seen[s.ID] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// OptedOutBy is who opted site out as a whole (PauseSite: the opt-out
// form, a claim, the operator), and whether it is.
func (d *DB) OptedOutBy(ctx context.Context, site string) (string, bool, error) {
	var by string
	err := d.r.QueryRowContext(ctx, `SELECT opted_by FROM opted_out WHERE site = $1`, site).Scan(&by)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("opt-out of %s: %w", site, err)
	}
	return by, true, nil
}

// RemovedSource is what RemoveSources did to one source.
type RemovedSource struct {
	URL   string
	Posts int  // its posts: kept, or deleted with purge
	Purge bool // deleted with its posts
}

// RemoveSources takes the sources the selectors name out of the crawl, in
// one transaction that first finds them all (SelectSources: a selector
// that names none changes nothing).
//
// Without purge a source stays a row, marked removed and paused (by the
// operator, unless its owner had paused it: that pause and its record
// stay), with its feeds, sitemaps and posts: every due question leaves
// paused sources out (due.go's sourceLive, itemLive), so nothing of it is
// asked again, its posts are exported as before, and AddSource brings it
// back where it was left. Removing a removed source again changes nothing.
//
// With purge the source is deleted, with everything that is its alone
// (purgeSource); what belongs to its site or origin, which other sources
// and any later crawl share, stays.
func (d *DB) RemoveSources(ctx context.Context, sels []sourcelist.Selector, purge bool, now time.Time) ([]RemovedSource, error) {
	var out []RemovedSource
	err := d.tx(ctx, func(tx conn) error {
		out = out[:0]
		srcs, err := selectSources(ctx, d, tx, sels)
		if err != nil {
			return err
		}
		for _, s := range srcs {
			r := RemovedSource{URL: s.URL, Purge: purge}
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM posts WHERE source_id = $1`, s.ID).Scan(&r.Posts); err != nil {
				return fmt.Errorf("posts of %s: %w", s.URL, err)
			}
			if purge {
				err = purgeSource(ctx, tx, s)
			} else {
				_, err = tx.ExecContext(ctx, `UPDATE sources SET
					paused_by = CASE WHEN paused <> 0 THEN paused_by ELSE $2 END,
					paused_at = CASE WHEN paused <> 0 THEN paused_at ELSE $3 END,
					paused = 1,
					removed = CASE WHEN removed <> 0 THEN removed ELSE $3 END WHERE id = $1`, s.ID, model.PausedByOperator, ts(now))
			}
			if err != nil {
				return fmt.Errorf("remove %s: %w", s.URL, err)
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("remove sources: %w", err)
	}
	return out, nil
}

// purgeSource deletes source s and what is its alone, children before the
// rows their foreign keys name: its posts' links (citations) and sitemap
// rows, the aliases of its posts, feeds and sitemaps, its WebSub
// subscriptions, its posts (with their text), sitemaps and feeds, and the
// source; then its site's checkout if no source of the site is left. The
// site's and its origins' records stay (the robots.txt cache, the refusal
// list, the stored waits, the request log, the opt-out and claims, how its
// hosts spell their URLs): they are what politeness and the owner's wishes
// rest on, and a source of the site added later must find them.
func purgeSource(ctx context.Context, tx conn, s SelectedSource) error {
	const posts = `(SELECT id FROM posts WHERE source_id = $1)`
	const feeds = `(SELECT id FROM feeds WHERE source_id = $1)`
	const sitemaps = `(SELECT id FROM sitemaps WHERE source_id = $1)`
	for _, q := range []string{
		`DELETE FROM links WHERE post_id IN ` + posts,
		`DELETE FROM sitemap_urls WHERE post_id IN ` + posts,
		`DELETE FROM sitemap_urls WHERE sitemap_id IN ` + sitemaps,
		`DELETE FROM url_aliases WHERE kind = '` + aliasPost + `' AND target IN ` + posts,
		`DELETE FROM url_aliases WHERE kind = '` + aliasFeed + `' AND target IN ` + feeds,
		`DELETE FROM url_aliases WHERE kind = '` + aliasSitemap + `' AND target IN ` + sitemaps,
		`DELETE FROM subscriptions WHERE source_id = $1`,
		`DELETE FROM posts WHERE source_id = $1`,
		`DELETE FROM sitemaps WHERE source_id = $1`,
		`DELETE FROM feeds WHERE source_id = $1`,
		`DELETE FROM sources WHERE id = $1`,
	} {
		if _, err := tx.ExecContext(ctx, q, s.ID); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM site_checkouts WHERE site = $1
		AND NOT EXISTS (SELECT 1 FROM sources WHERE site = $1)`, s.Site)
	return err
}

// DueSettings are the settings the due conditions of due.go compare
// with, as the crawl passes them (FEED_INTERVAL, DISALLOWED_RECHECK,
// SITEMAP_INTERVAL).
type DueSettings struct {
	FeedInterval      time.Duration
	DisallowedRecheck time.Duration
	SitemapInterval   time.Duration
}

// ListedSource is a source as the operator's list shows it.
type ListedSource struct {
	ID           int64
	URL          string
	Site         string
	State        string // one of model.SourceStates, as the public site and export --sources have it
	PostsIndexed int
	LastRead     time.Time // the newest read (200 or 304) of any of its feeds or sitemaps
	// NextDue is when it has work due next (SourcesNextDue); zero when
	// none will come by itself (paused or removed, or nothing left).
	NextDue time.Time
	Error   string // why its last discovery failed, as stored
	// Feed is its first active feed (by ID), "" when it has none; Title
	// the first title any of its feeds gave.
	Feed  string
	Title string
}

// ListSources lists every source, by ID, with its state, its counts and
// its times as of now.
func (d *DB) ListSources(ctx context.Context, now time.Time, ds DueSettings) ([]ListedSource, error) {
	var out []ListedSource
	// Small beside the posts, as for export --sources: one pass over the
	// sources, the per-source figures each one index seek (posts_source_state,
	// feeds_source_state, sitemaps_source_state).
	err := eachPage(ctx, d, `SELECT s.id, s.url, s.site, s.error,
		(SELECT count(*) FROM posts p WHERE p.source_id = s.id AND p.state = `+sqlPostIndexed+`),
		COALESCE((SELECT max(f.last_read) FROM feeds f WHERE f.source_id = s.id), 0),
		COALESCE((SELECT max(m.last_read) FROM sitemaps m WHERE m.source_id = s.id), 0),
		COALESCE((SELECT f.url FROM feeds f WHERE f.source_id = s.id AND f.state = `+sqlFeedActive+` ORDER BY f.id LIMIT 1), ''),
		COALESCE((SELECT f.title FROM feeds f WHERE f.source_id = s.id AND f.title <> '' ORDER BY f.id LIMIT 1), '')
		FROM sources s WHERE s.id > $1 ORDER BY s.id LIMIT $2`,
		func(sc interface{ Scan(...any) error }) (ListedSource, error) {
			var l ListedSource
			var feedRead, sitemapRead int64
			err := sc.Scan(&l.ID, &l.URL, &l.Site, &l.Error, &l.PostsIndexed, &feedRead, &sitemapRead, &l.Feed, &l.Title)
			l.LastRead = tm(max(feedRead, sitemapRead))
			return l, err
		}, func(l ListedSource) int64 { return l.ID }, func(l ListedSource) error { out = append(out, l); return nil })
	if err != nil {
		return nil, fmt.Errorf("list sources: %w", err)
	}
	// Read after the sources, as export --sources does, so that each has
	// its state and time (a purge meanwhile leaves them "").
	states, err := d.SiteData().SourceStates(ctx)
	if err != nil {
		return nil, err
	}
	due, err := d.SourcesNextDue(ctx, now, ds)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].State, out[i].NextDue = states[out[i].ID], due[out[i].ID]
	}
	return out, nil
}

// SourcesNextDue is, for every source with work to come, the time it is
// next due (now, if it is due now), by ID; a paused or removed source, and
// one with nothing that will come due by itself, has none.
//
// It is composed from due.go's conditions, not restated: every condition
// there compares an item's own columns with the time (and times derived
// from it: FEED_INTERVAL ago, SITEMAP_INTERVAL ago ...) and, the item
// left as it is, stays true once true. So the first moment an item is
// due is the earliest of its own thresholds (retry_at, next_due,
// discover_after, checked + an interval ...) at which the condition,
// asked at that moment, holds: each candidate is tried with the
// condition of its kind, and the earliest that holds wins. Before now
// means now.
//
// How it relates to the frontier's due (duesites.go): a source is taken
// up when dueSource holds (or a feed of it is chosen by PollsDue, which
// asks feedPollDue), which is this at now; the frontier also waits for the
// site's stored wait (site_waits, notWaiting), so the site's next
// permitted request, when later, is the source's next due; and a feed due
// by its schedule may wait a round or two behind FEED_BUDGET, which no
// stored time says.
func (d *DB) SourcesNextDue(ctx context.Context, now time.Time, ds DueSettings) (map[int64]time.Time, error) {
	// $1 FEED_INTERVAL, $2 DISALLOWED_RECHECK, $3 SITEMAP_INTERVAL, in the
	// store's unit (ns). A candidate t is written once per use: at(t) asks
	// the kind's condition at t.
	feedPoll := func(t string) string {
		return `SELECT f.source_id AS sid, ` + t + ` AS t FROM feeds f WHERE ` +
			feedPollDue("f", t, `(`+t+` - $1)`, `(`+t+` - $2)`)
	}
	sitemap := func(t string) string {
		return `SELECT m.source_id AS sid, ` + t + ` AS t FROM sitemaps m WHERE ` + sitemapDue("m", t, `(`+t+` - $3)`)
	}
	feed := func(t string) string {
		return `SELECT f.source_id AS sid, ` + t + ` AS t FROM feeds f WHERE (` + feedToRead("f", t) + ` OR ` + catalogueDue("f", t) + `)`
	}
	candidates := []string{
		`SELECT s.id AS sid, s.discover_after AS t FROM sources s WHERE ` + discoveryDue("s", "s.discover_after"),
		`SELECT s.id AS sid, s.sitemaps_after AS t FROM sources s WHERE ` + sitemapDiscoveryDue("s", "s.sitemaps_after"),
		feed("f.retry_at"),
		feedPoll("f.retry_at"), feedPoll("f.next_due"), feedPoll("(f.checked + $1 + 1)"), feedPoll("(f.checked + $2 + 1)"),
		sitemap("m.retry_at"), sitemap("(m.last_read + $3 + 1)"),
		`SELECT p.source_id AS sid, min(p.retry_at) AS t FROM posts p WHERE ` + pageDue("p", "p.retry_at") + ` GROUP BY p.source_id`,
	}
	q := `SELECT s.id, min(c.t), COALESCE((SELECT w.next FROM site_waits w WHERE w.site = s.site), 0)
		FROM (` + joinUnion(candidates) + `) c JOIN sources s ON s.id = c.sid
		WHERE ` + sourceLive("s") + ` GROUP BY s.id, s.site`
	out := map[int64]time.Time{}
	err := d.each(ctx, d.r, q, []any{int64(ds.FeedInterval), int64(ds.DisallowedRecheck), int64(ds.SitemapInterval)}, func(rows *sql.Rows) error {
		var id, t, wait int64
		if err := rows.Scan(&id, &t, &wait); err != nil {
			return err
		}
		at := now.UTC()
		if c := time.Unix(0, t).UTC(); c.After(at) {
			at = c
		}
		if w := tm(wait); w.After(at) {
			at = w
		}
		out[id] = at
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sources next due: %w", err)
	}
	return out, nil
}

func joinUnion(qs []string) string {
	out := ""
	for i, q := range qs {
		if i > 0 {
			out += "\n\t\tUNION ALL "
		}
		out += q
	}
	return out
}
