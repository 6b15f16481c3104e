package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Site waits: the back-off and Retry-After of the sites in trouble, kept
// in site_waits so that the next process, or another worker, honours them
// (the fetcher decides what they are and when one has rested); the
// frontier leaves out the sites whose next permitted request is beyond its
// horizon (SiteQuery.WaitBefore).

// LoadWaits returns every stored wait, after deleting those whose next
// permitted request and Retry-After both fall before forgetBefore: waits
// the fetcher says have rested too long to matter.
func (d *DB) LoadWaits(ctx context.Context, forgetBefore time.Time) ([]model.SiteWait, error) {
	if _, err := d.w.ExecContext(ctx, `DELETE FROM site_waits WHERE next < $1 AND retry_until < $1`, ts(forgetBefore)); err != nil {
		return nil, fmt.Errorf("site waits: prune: %w", err)
	}
	var out []model.SiteWait
	err := d.each(ctx, d.r, `SELECT site, gap, gap_end, retry_until, next FROM site_waits ORDER BY site`, nil, func(rows *sql.Rows) error {
		var w model.SiteWait
		var gap, end, until, next int64
		if err := rows.Scan(&w.Site, &gap, &end, &until, &next); err != nil {
			return err
		}
		w.Gap, w.End, w.Until, w.Next = time.Duration(gap), tm(end), tm(until), tm(next)
		out = append(out, w)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("site waits: %w", err)
	}
	return out, nil
}

// SaveWait stores w, or deletes the site's wait when w has no Gap and no
// Until.
func (d *DB) SaveWait(ctx context.Context, w model.SiteWait) error {
	var err error
	if w.Gap == 0 && w.Until.IsZero() {
		_, err = d.w.ExecContext(ctx, `DELETE FROM site_waits WHERE site = $1`, w.Site)
	} else {
		_, err = d.w.ExecContext(ctx, `INSERT INTO site_waits(site, gap, gap_end, retry_until, next) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT(site) DO UPDATE SET gap = excluded.gap, gap_end = excluded.gap_end,
			retry_until = excluded.retry_until, next = excluded.next`,
			w.Site, int64(w.Gap), ts(w.End), ts(w.Until), ts(w.Next))
	}
	if err != nil {
		return fmt.Errorf("site wait of %s: %w", w.Site, err)
	}
	return nil
}

// WaitingSite is a site with due work that waits for its next permitted
// request beyond a horizon.
type WaitingSite struct {
	Site  string
	Until time.Time
}

// WaitingSites lists, soonest first, up to limit sites with due work
// (q's) that are left out of the frontier because their next permitted
// request is at or after q.WaitBefore; those finished in q.Round aside,
// unless it is empty.
func (d *DB) WaitingSites(ctx context.Context, q SiteQuery, limit int) ([]WaitingSite, error) {
	var out []WaitingSite
	err := d.each(ctx, d.r, `SELECT w.site, w.next FROM site_waits w WHERE w.next >= $3
		AND EXISTS (SELECT 1 FROM sources s WHERE s.site = w.site AND `+dueSource("$1", "$2")+`)
		AND ($4 = '' OR NOT EXISTS (SELECT 1 FROM site_checkouts c WHERE c.site = w.site AND c.round = $4))
		ORDER BY w.next, w.site LIMIT $5`, []any{ts(q.Now), ts(q.SitemapsBefore), ts(q.WaitBefore), q.Round, limit}, func(rows *sql.Rows) error {
		var s WaitingSite
		var next int64
		err := rows.Scan(&s.Site, &next)
		s.Until = tm(next)
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("waiting sites: %w", err)
	}
	return out, nil
}
