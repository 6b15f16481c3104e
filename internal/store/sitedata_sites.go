package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"corpus.blog/corpusbot/internal/model"
)

// Sites implements web.DirectoryData. The page is chosen by key on sources.site
// (the sources_site index, walked in order from After), its Total by one
// count; only the page's sites are then summarised, in four queries over
// their sources.
func (s *SiteData) Sites(ctx context.Context, q model.SitesQuery) (model.SitePage, error) {
	limit := max(q.Limit, 1)
	page := model.SitePage{Sites: []model.SiteSummary{}}
	state, err := s.stateExpr(ctx)
	if err != nil {
		return page, fmt.Errorf("sites: %w", err)
	}
	// The conditions are written out per case, not as "($1 = '' OR …)":
	// SQLite uses the index for the range only when it stands alone. The
	// state filter is the state CASE (see stateSQL) over every source:
	// set-based, never a source loaded into Go.
	var cond []string
	var args []any
	if q.State != "" {
		args = append(args, q.State)
		cond = append(cond, state+` = $1`)
	}
	where := ``
	if len(cond) > 0 {
		where = ` WHERE ` + cond[0]
	}
	page.Total, err = s.count(ctx, `SELECT count(DISTINCT s.site) FROM sources s`+where, args...)
	if err != nil {
		return page, fmt.Errorf("sites: total: %w", err)
	}
	if q.After != "" {
		args = append(args, q.After)
		cond = append(cond, `s.site > $`+strconv.Itoa(len(args))+s.collate)
	}
	if len(cond) > 0 {
		where = ` WHERE ` + strings.Join(cond, ` AND `)
	}
	args = append(args, limit+1)
	var names []string
	err = s.db.each(ctx, s.db.r, `SELECT s.site FROM sources s`+where+`
		GROUP BY s.site ORDER BY s.site`+s.collate+` LIMIT $`+strconv.Itoa(len(args)), args, func(rows *sql.Rows) error {
		var site string
		err := rows.Scan(&site)
		names = append(names, site)
		return err
	})
	if err != nil {
		return page, fmt.Errorf("sites: page: %w", err)
	}
	if len(names) > limit {
		names = names[:limit]
		page.Next = names[limit-1]
	}
	if len(names) == 0 {
		return page, nil
	}
	sums, err := s.summaries(ctx, state, names)
	if err != nil {
		return page, fmt.Errorf("sites: %w", err)
	}
	page.Sites = sums
	return page, nil
}

// summaries sums up the named sites, in the order given.
func (s *SiteData) summaries(ctx context.Context, state string, names []string) ([]model.SiteSummary, error) {
	in := `s.site IN (` + placeholders(1, len(names)) + `)`
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	type src struct {
		id        int64
		site, url string
		state     string
	}
	var srcs []src
	err := s.db.each(ctx, s.db.r, `SELECT s.id, s.site, s.url, `+state+` FROM sources s WHERE `+in, args, func(rows *sql.Rows) error {
		var x src
		err := rows.Scan(&x.id, &x.site, &x.url, &x.state)
		srcs = append(srcs, x)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	titles, lastRead, err := s.feedTitles(ctx, in, args)
	if err != nil {
		return nil, err
	}
	err = s.db.each(ctx, s.db.r, `SELECT s.site, max(m.last_read) FROM sitemaps m JOIN sources s ON s.id = m.source_id
		WHERE `+in+` GROUP BY s.site`, args, func(rows *sql.Rows) error {
		var site string
		var read int64
		if err := rows.Scan(&site, &read); err != nil {
			return err
		}
		lastRead[site] = max(lastRead[site], read)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sitemaps: %w", err)
	}
	bySite := make(map[string]*model.SiteSummary, len(names))
	for _, n := range names {
		bySite[n] = &model.SiteSummary{Site: n, LastRead: tm(lastRead[n])}
	}
	err = s.db.each(ctx, s.db.r, `SELECT s.site, count(*), sum(CASE WHEN p.state = `+sqlPostIndexed+` THEN 1 ELSE 0 END)
		FROM posts p JOIN sources s ON s.id = p.source_id WHERE `+in+` GROUP BY s.site`, args, func(rows *sql.Rows) error {
		var site string
		var n, indexed int
		if err := rows.Scan(&site, &n, &indexed); err != nil {
			return err
		}
		bySite[site].Posts, bySite[site].Indexed = n, indexed
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("posts: %w", err)
	}
	// The title is the first (by homepage URL) source's that has one, as
	// the sources are listed.
	slices.SortFunc(srcs, func(a, b src) int { return cmp.Compare(a.url, b.url) })
	states := map[string]map[string]bool{}
	for _, x := range srcs {
		sum := bySite[x.site]
		sum.Sources++
		if sum.Title == "" {
			sum.Title = titles[x.id]
		}
		if states[x.site] == nil {
			states[x.site] = map[string]bool{}
		}
		states[x.site][x.state] = true
	}
	out := make([]model.SiteSummary, 0, len(names))
	for _, n := range names {
		sum := bySite[n]
		for _, st := range model.SourceStates {
			if states[n][st] {
				sum.States = append(sum.States, st)
			}
		}
		out = append(out, *sum)
	}
	return out, nil
}

// feedTitles reads the feeds of the sources matching cond (over sources
// s): each source's title (model.SourceDetail.Title: that of its earliest
// added feed that states one: the feed discovery found first is the main
// one, a comments feed comes later) and each site's newest feed read.
func (s *SiteData) feedTitles(ctx context.Context, cond string, args []any) (map[int64]string, map[string]int64, error) {
	titles, lastRead := map[int64]string{}, map[string]int64{}
	err := s.db.each(ctx, s.db.r, `SELECT f.source_id, s.site, f.title, f.last_read FROM feeds f JOIN sources s ON s.id = f.source_id
		WHERE `+cond+` ORDER BY f.id`, args, func(rows *sql.Rows) error {
		var id, read int64
		var site, title string
		if err := rows.Scan(&id, &site, &title, &read); err != nil {
			return err
		}
		if titles[id] == "" {
			titles[id] = title
		}
		lastRead[site] = max(lastRead[site], read)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("feeds: %w", err)
	}
	return titles, lastRead, nil
}
