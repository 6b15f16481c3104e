package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Coverage implements web.OverviewData in five aggregate queries: sources, posts
// by state, the small tables' counts, the never-304 sites, and the
// failures by reason (errorReasons). Each reads
// an index (posts_state_dated, feeds_due, requests_conditional …),
// never the posts' rows.
func (s *SiteData) Coverage(ctx context.Context) (model.Coverage, error) {
	var c model.Coverage
	counts := map[string]int{}
	var paused, noFeed sql.NullInt64
	err := s.db.r.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT site),
		sum(CASE WHEN paused <> 0 AND removed = 0 THEN 1 ELSE 0 END),
		sum(CASE WHEN discovered <> 0 AND NOT EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id)
			AND NOT EXISTS (SELECT 1 FROM sitemaps m WHERE m.source_id = s.id) THEN 1 ELSE 0 END)
		FROM sources s`).Scan(&c.Sources, &c.Sites, &paused, &noFeed)
	if err != nil {
		return c, fmt.Errorf("coverage: sources: %w", err)
	}
	counts[model.GapPaused], counts[model.GapNoFeedNoSitemap] = int(paused.Int64), int(noFeed.Int64)

	err = s.db.each(ctx, s.db.r, `SELECT state, count(*) FROM posts GROUP BY state`, nil, func(rows *sql.Rows) error {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return err
		}
		c.Posts += n
		switch state {
		case model.PostIndexed:
			c.Indexed = n
		case model.PostDisallowed:
			counts[model.GapDisallowedPosts] = n
		case model.PostShell:
			counts[model.GapShell] = n
		case model.PostNoindex:
			counts[model.GapNoindex] = n
		case model.PostError:
			counts[model.GapErrors] += n
		}
		return nil
	})
	if err != nil {
		return c, fmt.Errorf("coverage: posts: %w", err)
	}

	var disallowed, feedErrors, sitemapErrors, refused, unreachable int
	err = s.db.r.QueryRowContext(ctx, `SELECT
		(SELECT count(DISTINCT source_id) FROM feeds WHERE state = `+sqlFeedDisallowed+`),
		(SELECT count(*) FROM feeds WHERE state = `+sqlFeedError+`),
		(SELECT count(*) FROM sitemaps WHERE state = `+sqlSitemapError+`),
		(SELECT count(*) FROM refusals WHERE refused),
		(SELECT count(*) FROM origins WHERE state IN `+sqlRobotsUnreachable+`)`).
		Scan(&disallowed, &feedErrors, &sitemapErrors, &refused, &unreachable)
	if err != nil {
		return c, fmt.Errorf("coverage: gaps: %w", err)
	}
	counts[model.GapErrors] += feedErrors + sitemapErrors
	counts[model.GapDisallowed], counts[model.GapRefused], counts[model.GapRobotsUnreachable] = disallowed, refused, unreachable

	// Sites whose validators never earn a 304: the partial index
	// requests_conditional holds exactly the conditional records.
	never, err := s.count(ctx, `SELECT count(*) FROM (SELECT site FROM requests
		WHERE conditional AND outcome NOT IN `+withheld+` GROUP BY site
		HAVING count(*) >= $1 AND sum(CASE WHEN status = 304 THEN 1 ELSE 0 END) = 0) x`, model.Never304Minimum)
	if err != nil {
		return c, fmt.Errorf("coverage: never-304: %w", err)
	}
	counts[model.GapNever304] = never

	c.Gaps = make([]model.GapCount, 0, len(model.GapReasons))
	for _, reason := range model.GapReasons {
		c.Gaps = append(c.Gaps, model.GapCount{Reason: reason, Count: counts[reason]})
	}
	if c.Errors, err = s.errorReasons(ctx); err != nil {
		return c, fmt.Errorf("coverage: %w", err)
	}
	return c, nil
}

// SourcesByState implements web.OverviewData: one GROUP BY over the state CASE
// (see stateSQL).
func (s *SiteData) SourcesByState(ctx context.Context) ([]model.StateCount, error) {
	state, err := s.stateExpr(ctx)
	if err != nil {
		return nil, fmt.Errorf("sources by state: %w", err)
	}
	counts, err := s.countBy(ctx, `SELECT st, count(*) FROM (SELECT `+state+` AS st FROM sources s) x GROUP BY st`)
	if err != nil {
		return nil, fmt.Errorf("sources by state: %w", err)
	}
	out := make([]model.StateCount, 0, len(model.SourceStates))
	for _, st := range model.SourceStates {
		out = append(out, model.StateCount{State: st, Count: counts[st]})
	}
	return out, nil
}

// PostsPerMonth implements web.OverviewData: every indexed post, by its
// published month or, having none, by its first-seen month (Undated). SQL
// buckets by day (integer arithmetic both dialects share, where month
// arithmetic on nanoseconds would not be) over the posts_state_dated
// index; Go folds the at most a few thousand days into months. Dates after
// 1970 take a plain division, the few published before it dayOf's floor
// (a first-seen date is the crawl's clock, never before 1970). A post with
// neither date (held before first-seen dates were recorded, and never
// fetched) is in no month.
func (s *SiteData) PostsPerMonth(ctx context.Context) ([]model.MonthCount, error) {
	counts := map[time.Time]model.MonthCount{}
	perDay := strconv.FormatInt(nanosPerDay, 10)
	err := s.db.each(ctx, s.db.r, `SELECT published / `+perDay+`, 0, count(*) FROM posts
		WHERE state = `+sqlPostIndexed+` AND published > 0 GROUP BY published / `+perDay+`
		UNION ALL SELECT `+dayOf("published")+`, 0, count(*) FROM posts
		WHERE state = `+sqlPostIndexed+` AND published < 0 GROUP BY `+dayOf("published")+`
		UNION ALL SELECT first_seen / `+perDay+`, 1, count(*) FROM posts
		WHERE state = `+sqlPostIndexed+` AND published = 0 AND first_seen > 0 GROUP BY first_seen / `+perDay, nil, func(rows *sql.Rows) error {
		var day int64
		var undated, n int
		if err := rows.Scan(&day, &undated, &n); err != nil {
			return err
		}
		t := dayTime(day)
		m := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		mc := counts[m]
		mc.Month, mc.Count = m, mc.Count+n
		if undated != 0 {
			mc.Undated += n
		}
		counts[m] = mc
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("posts per month: %w", err)
	}
	out := make([]model.MonthCount, 0, len(counts))
	for _, mc := range counts {
		out = append(out, mc)
	}
	slices.SortFunc(out, func(a, b model.MonthCount) int { return a.Month.Compare(b.Month) })
	return out, nil
}
