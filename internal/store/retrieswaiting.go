package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// RetriesWaiting is what a round that found nothing due tells the
// operator: how many sources have items that wait for a retry, when the
// soonest comes, and that item's last failure.
type RetriesWaiting struct {
	Sources int       // unpaused sources held
	Waiting int       // of them, those with an item waiting for a retry
	Next    time.Time // the soonest retry; zero when none waits
	Error   string    // the last failure of the item retried soonest
}

// retryItems are the items of every unpaused source that wait for a retry
// after $1 (SiteRetryAt's, over all sites): source id, retry time, last
// failure. A post waiting for a retry carries its error, which lets the
// posts be read through posts_failed.
var retryItems = `SELECT s.id AS sid, s.discover_after AS t, s.error AS why FROM sources s
		WHERE ` + sourceLive("s") + ` AND ` + discoveryWaits("s", "$1") + `
	UNION ALL SELECT s.id, s.sitemaps_after, s.error FROM sources s
		WHERE ` + sourceLive("s") + ` AND ` + sitemapDiscoveryWaits("s", "$1") + `
	UNION ALL SELECT f.source_id, f.retry_at, f.error FROM feeds f JOIN sources s ON s.id = f.source_id
		WHERE ` + sourceLive("s") + ` AND ` + feedWaits("f", "$1") + `
	UNION ALL SELECT m.source_id, m.retry_at, m.error FROM sitemaps m JOIN sources s ON s.id = m.source_id
		WHERE ` + sourceLive("s") + ` AND ` + sitemapWaits("m", "$1") + `
	UNION ALL SELECT p.source_id, p.retry_at, p.error FROM posts p JOIN sources s ON s.id = p.source_id
		WHERE p.error <> '' AND ` + sourceLive("s") + ` AND ` + pageWaits("p", "$1")

// RetriesWaiting is, over every site, how many sources have items waiting
// for a retry after now, the soonest and its last failure: what a round
// that found nothing due says of why. It is asked only when a round
// found nothing due, so its scan of the waiting items (the posts through
// posts_failed: one waiting for a retry carries its error) costs no busy
// round anything.
func (d *DB) RetriesWaiting(ctx context.Context, now time.Time) (RetriesWaiting, error) {
	var w RetriesWaiting
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM sources WHERE paused = 0`).Scan(&w.Sources); err != nil {
		return w, fmt.Errorf("retries waiting: %w", err)
	}
	var next sql.NullInt64
	err := d.r.QueryRowContext(ctx, `SELECT count(DISTINCT r.sid), min(r.t) FROM (`+retryItems+`) r`, ts(now)).Scan(&w.Waiting, &next)
	if err != nil {
		return w, fmt.Errorf("retries waiting: %w", err)
	}
	if !next.Valid {
		return w, nil
	}
	w.Next = tm(next.Int64)
	err = d.r.QueryRowContext(ctx, `SELECT r.why FROM (`+retryItems+`) r ORDER BY r.t, r.sid LIMIT 1`, ts(now)).Scan(&w.Error)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return w, fmt.Errorf("retries waiting: %w", err)
	}
	return w, nil
}
