package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"corpus.blog/corpusbot/internal/model"
)

// A source's state is computed in SQL, as one CASE expression, rather than
// in Go: SourcesByState and the state filter of Sites range over every
// source (100,000 of them), and loading each with its feeds, sitemaps,
// origin and refusal to decide in Go would move the whole catalogue per
// request. Every use (the counts, the filter, the states of a page of
// sites, one site's sources) builds the same expression with stateSQL, so
// they cannot disagree.
//
// Its branches follow the precedence of model.SourceStates.
// Each EXISTS is one index seek
// (feeds_source_state, sitemaps_source_state, the origins key), the
// refused sites are one list made once per query, and CASE and AND stop
// at the first test that decides: the tests that usually fail come first
// (an active source costs three seeks). Measured on SQLite
// (BenchmarkSiteData), this beats joining per-source aggregates of feeds
// and sitemaps.
//
// mayBeBlocked and mayBeUnreachable are SQL conditions on s that hold for
// every source whose origin may be blocked (origins.blocked, which the
// crawler sets from its robots matcher) or unreachable: only those look
// up their origin (see stateExpr).
func stateSQL(origin, mayBeBlocked, mayBeUnreachable string) string {
	return `CASE
	WHEN s.removed <> 0 THEN '` + model.StateRemoved + `'
	WHEN s.paused <> 0 THEN '` + model.StatePaused + `'
	WHEN ` + mayBeBlocked + ` AND EXISTS (SELECT 1 FROM origins o WHERE o.origin = ` + origin + `
		AND o.blocked <> 0) THEN '` + model.StateBlocked + `'
	WHEN s.site IN (SELECT r.site FROM refusals r WHERE r.refused) THEN '` + model.StateRefused + `'
	WHEN ` + mayBeUnreachable + ` AND EXISTS (SELECT 1 FROM origins o WHERE o.origin = ` + origin + `
		AND o.state IN ` + sqlRobotsUnreachable + `) THEN '` + model.StateUnreachable + `'
	WHEN NOT EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id AND f.state <> ` + sqlFeedDisallowed + `)
		AND EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id)
		AND NOT EXISTS (SELECT 1 FROM sitemaps m WHERE m.source_id = s.id) THEN '` + model.StateDisallowed + `'
	WHEN s.discovered = 0 THEN '` + model.StatePending + `'
	WHEN NOT EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id)
		AND NOT EXISTS (SELECT 1 FROM sitemaps m WHERE m.source_id = s.id) THEN '` + model.StateNoFeed + `'
	WHEN NOT EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id AND f.state <> ` + sqlFeedError + `)
		AND NOT EXISTS (SELECT 1 FROM sitemaps m WHERE m.source_id = s.id AND m.state <> ` + sqlSitemapError + `) THEN '` + model.StateError + `'
	ELSE '` + model.StateActive + `' END`
}

// maxUnreachableSites bounds each literal list of stateExpr; past it the
// origin of every source is computed (slower, as correct).
const maxUnreachableSites = 2000

// stateExpr is the state CASE as of now. Computing a homepage's origin from
// its URL (originSQL) is the costliest test, so it runs only for sources of
// a site that has a blocked or an unreachable origin at all: those origins
// are few (a gap list), read here through origins_blocked and
// origins_state, and their sites, computed in Go as sources.site is, go
// into the SQL as lists of literals.
func (s *SiteData) stateExpr(ctx context.Context) (string, error) {
	blocked, err := s.originSites(ctx, `SELECT origin FROM origins WHERE blocked <> 0`)
	if err != nil {
		return "", fmt.Errorf("blocked origins: %w", err)
	}
	unreachable, err := s.originSites(ctx, `SELECT origin FROM origins WHERE state IN `+sqlRobotsUnreachable)
	if err != nil {
		return "", fmt.Errorf("unreachable origins: %w", err)
	}
	return stateSQL(s.origin, s.sitesIn(blocked), s.sitesIn(unreachable)), nil
}

// originSites is the sites (quoted, distinct) of the origins query lists.
func (s *SiteData) originSites(ctx context.Context, query string) ([]string, error) {
	var sites []string
	seen := map[string]bool{}
	err := s.db.each(ctx, s.db.r, query, nil, func(rows *sql.Rows) error {
		var o string
		if err := rows.Scan(&o); err != nil {
			return err
		}
		if site := model.SiteOfURL(o); !seen[site] {
			seen[site] = true
			sites = append(sites, quote(site))
		}
		return nil
	})
	return sites, err
}

// sitesIn is the condition "the source's site is one of sites", as cheap
// as the list allows.
func (s *SiteData) sitesIn(sites []string) string {
	switch {
	case len(sites) == 0:
		return `1 = 0`
	case len(sites) > s.maxUnreachable:
		return `1 = 1`
	}
	return `s.site IN (` + strings.Join(sites, ", ") + `)`
}

// quote is s as an SQL string literal (standard SQL: quotes doubled, no
// other escape, as both dialects read it).
func quote(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// originSQL is the SQL for the robots.txt origin (model.OriginOf's
// scheme://host:port, lowercase, the port always written) of the http or
// https URL in col, so that a source's origin is looked up by the origins
// key instead of every origin being scanned. find is the dialect's
// strpos. Sources are homepages as the crawler stores them (absolute,
// without userinfo); the host ends at the first "/" or at the end.
func originSQL(col, find string) string {
	https := `lower(substr(` + col + `, 1, 8)) = 'https://'`
	rest := `substr(` + col + `, CASE WHEN ` + https + ` THEN 9 ELSE 8 END)`
	hostport := `lower(substr(` + rest + `, 1, ` + find + `(` + rest + ` || '/', '/') - 1))`
	return `(CASE WHEN ` + https + ` THEN 'https://' ELSE 'http://' END || ` + hostport + ` ||
		CASE WHEN ` + find + `(` + hostport + `, ':') = 0 OR ` + hostport + ` LIKE '%]'
		THEN CASE WHEN ` + https + ` THEN ':443' ELSE ':80' END ELSE '' END)`
}

// SourceStates is every source's state (one of model.SourceStates) by source
// ID: the export's, computed by the same CASE as the public site's
// (stateSQL), in one pass over the sources.
func (s *SiteData) SourceStates(ctx context.Context) (map[int64]string, error) {
	state, err := s.stateExpr(ctx)
	if err != nil {
		return nil, fmt.Errorf("source states: %w", err)
	}
	out := map[int64]string{}
	err = s.db.each(ctx, s.db.r, `SELECT s.id, `+state+` FROM sources s`, nil, func(rows *sql.Rows) error {
		var id int64
		var st string
		if err := rows.Scan(&id, &st); err != nil {
			return err
		}
		out[id] = st
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source states: %w", err)
	}
	return out, nil
}
