package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// requests summarises the log of one site: two aggregate queries over its
// range of the requests_site index, and its last RequestDays days.
func (s *SiteData) requests(ctx context.Context, site string, now time.Time) (model.Requests, error) {
	var r model.Requests
	var first, last sql.NullInt64
	err := s.db.r.QueryRowContext(ctx, `SELECT
		coalesce(sum(CASE WHEN outcome IN `+withheld+` THEN 0 ELSE 1 END), 0),
		coalesce(sum(CASE WHEN outcome NOT IN `+withheld+` AND conditional THEN 1 ELSE 0 END), 0),
		coalesce(sum(CASE WHEN outcome NOT IN `+withheld+` AND status = 304 THEN 1 ELSE 0 END), 0),
		coalesce(sum(CASE WHEN outcome IN `+withheld+` THEN 1 ELSE 0 END), 0),
		min(CASE WHEN outcome NOT IN `+withheld+` THEN start END),
		max(CASE WHEN outcome NOT IN `+withheld+` THEN start END)
		FROM requests WHERE site = $1`, site).Scan(&r.Total, &r.Conditional, &r.NotModified, &r.Withheld, &first, &last)
	if err != nil {
		return r, fmt.Errorf("requests: %w", err)
	}
	r.First, r.Last = tm(first.Int64), tm(last.Int64)
	purposes, err := s.countBy(ctx, `SELECT purpose, count(*) FROM requests WHERE site = $1 AND outcome NOT IN `+withheld+`
		GROUP BY purpose`, site)
	if err != nil {
		return r, fmt.Errorf("requests by purpose: %w", err)
	}
	r.ByPurpose = []model.PurposeCount{}
	for _, p := range []model.Purpose{model.PurposeRobots, model.PurposeFeed, model.PurposePage, model.PurposeSitemap, model.PurposeCatalogue} {
		if n := purposes[string(p)]; n > 0 {
			r.ByPurpose = append(r.ByPurpose, model.PurposeCount{Purpose: string(p), Count: n})
		}
	}
	to := utcDay(now).AddDate(0, 0, 1)
	r.Days, err = s.requestDays(ctx, site, to.AddDate(0, 0, -model.RequestDays), to)
	return r, err
}

// RequestsPerDay implements web.OverviewData.
func (s *SiteData) RequestsPerDay(ctx context.Context, from, to time.Time) ([]model.RequestDay, error) {
	return s.requestDays(ctx, "", from, to)
}

// RequestSpan implements web.OverviewData: the first and the last record's start
// (records withheld excluded, as RequestsPerDay excludes them), each one
// step down the requests_day index (start first) from its end.
func (s *SiteData) RequestSpan(ctx context.Context) (from, to time.Time, ok bool, err error) {
	var first, last sql.NullInt64
	err = s.db.r.QueryRowContext(ctx, `SELECT
		(SELECT start FROM requests WHERE outcome NOT IN `+withheld+` ORDER BY start LIMIT 1),
		(SELECT start FROM requests WHERE outcome NOT IN `+withheld+` ORDER BY start DESC LIMIT 1)`).Scan(&first, &last)
	if err != nil {
		return from, to, false, fmt.Errorf("request span: %w", err)
	}
	if !first.Valid || !last.Valid {
		return from, to, false, nil
	}
	return tm(first.Int64), tm(last.Int64), true, nil
}

// requestDays buckets the log by UTC day over the requests_day index
// (requests_site for one site), for one site or ("") all.
func (s *SiteData) requestDays(ctx context.Context, site string, from, to time.Time) ([]model.RequestDay, error) {
	lo, hi := bound(utcDay(from)), bound(utcDay(to))
	// After 1970 a plain division is the floor, and a quarter of the cost
	// of dayOf's over half a million records a month.
	day := dayOf("start")
	if lo >= 0 {
		day = `(start / ` + strconv.FormatInt(nanosPerDay, 10) + `)`
	}
	// requests_day covers every column read here.
	q := `SELECT ` + day + `, count(*),
		sum(CASE WHEN conditional THEN 1 ELSE 0 END),
		sum(CASE WHEN status = 304 THEN 1 ELSE 0 END),
		sum(CASE WHEN outcome IN ` + sqlOutcomesFailed + ` THEN 1 ELSE 0 END),
		CAST(sum(bytes) AS BIGINT)
		FROM requests WHERE start >= $1 AND start < $2 AND outcome NOT IN ` + withheld
	args := []any{lo, hi}
	if site != "" {
		q += ` AND site = $3`
		args = append(args, site)
	}
	q += ` GROUP BY ` + day + ` ORDER BY ` + day
	out := []model.RequestDay{}
	err := s.db.each(ctx, s.db.r, q, args, func(rows *sql.Rows) error {
		var d model.RequestDay
		var n int64
		if err := rows.Scan(&n, &d.Requests, &d.Conditional, &d.NotModified, &d.Errors, &d.Bytes); err != nil {
			return err
		}
		d.Day = dayTime(n)
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("requests per day: %w", err)
	}
	return out, nil
}

func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// bound is t in nanoseconds, clamped to what int64 nanoseconds can hold
// (a query from the zero time is a query from the beginning).
func bound(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}
