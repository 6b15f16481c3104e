package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

const feedCols = `id, source_id, url, state, etag, last_modified, last_read, checked, error, catalogue, next_page, pages`

func scanFeed(sc interface{ Scan(...any) error }) (store.Feed, error) {
	var f store.Feed
	var read, checked int64
	err := sc.Scan(&f.ID, &f.SourceID, &f.URL, &f.State, &f.ETag, &f.LastModified, &read, &checked, &f.Error, &f.Catalogue, &f.NextPage, &f.Pages)
	f.LastRead, f.Checked = tm(read), tm(checked)
	return f, err
}

// AddFeed implements store.Store.
func (d *DB) AddFeed(ctx context.Context, f store.Feed) (store.Feed, error) {
	if f.State == "" {
		f.State = store.FeedActive
	}
	if f.Catalogue == "" {
		f.Catalogue = store.CatalogueNone
	}
	_, err := d.w.ExecContext(ctx, `INSERT INTO feeds(source_id, url, state, catalogue) VALUES ($1, $2, $3, $4) ON CONFLICT(url) DO NOTHING`,
		f.SourceID, f.URL, f.State, f.Catalogue)
	if err != nil {
		return f, fmt.Errorf("add feed %s: %w", f.URL, err)
	}
	return scanFeed(d.w.QueryRowContext(ctx, `SELECT `+feedCols+` FROM feeds WHERE url = $1`, f.URL))
}

// UpdateFeed implements store.Store.
func (d *DB) UpdateFeed(ctx context.Context, f store.Feed) error {
	return d.tx(ctx, func(tx *sql.Tx) error { return updateFeed(ctx, tx, f) })
}

func updateFeed(ctx context.Context, tx *sql.Tx, f store.Feed) error {
	_, err := tx.ExecContext(ctx, `UPDATE feeds SET state = $1, etag = $2, last_modified = $3, last_read = $4, checked = $5,
		error = $6, catalogue = $7, next_page = $8, pages = $9, claimed_by = '', claimed_until = 0 WHERE id = $10`,
		f.State, f.ETag, f.LastModified, ts(f.LastRead), ts(f.Checked), f.Error, f.Catalogue, f.NextPage, f.Pages, f.ID)
	if err != nil {
		return fmt.Errorf("update feed %s: %w", f.URL, err)
	}
	return nil
}

// SourceFeeds implements store.Store.
func (d *DB) SourceFeeds(ctx context.Context, sourceID int64) ([]store.Feed, error) {
	return d.feeds(ctx, `SELECT `+feedCols+` FROM feeds WHERE source_id = $1 ORDER BY id`, sourceID)
}

// FeedsDue implements store.Store. Each state is its own index range, so
// the choice costs a few index seeks however many feeds there are. Like
// PostsDue it claims what it returns (released by UpdateFeed and
// FeedRead), skipping rows another live claimer holds or has locked. The
// due conditions are repeated at the locking level: PostgreSQL re-checks
// only those on a row another worker changed meanwhile (one that finished
// it), not the subquery's.
func (d *DB) FeedsDue(ctx context.Context, activeBefore, disallowedBefore time.Time, limit int) ([]store.Feed, error) {
	owner, now, until := d.claims.stamp()
	free := `(claimed_by = $8 OR claimed_until < $9)`
	return d.feeds(ctx, `WITH c AS (UPDATE feeds SET claimed_by = $8, claimed_until = $10 WHERE id IN (
		SELECT id FROM feeds WHERE id IN (
			SELECT id FROM (SELECT id FROM feeds WHERE state = 'active' AND last_read < $1 AND `+free+` ORDER BY last_read LIMIT $2) a
			UNION ALL SELECT id FROM (SELECT id FROM feeds WHERE state = 'error' AND checked < $3 AND `+free+` ORDER BY checked LIMIT $4) e
			UNION ALL SELECT id FROM (SELECT id FROM feeds WHERE state = 'disallowed' AND checked < $5 AND `+free+` ORDER BY checked LIMIT $6) d)
		AND `+free+` AND ((state = 'active' AND last_read < $1) OR (state = 'error' AND checked < $3) OR (state = 'disallowed' AND checked < $5))
		ORDER BY checked, id LIMIT $7 FOR UPDATE SKIP LOCKED) RETURNING `+feedCols+`)
	SELECT `+feedCols+` FROM c ORDER BY checked, id`,
		ts(activeBefore), limit, ts(activeBefore), limit, ts(disallowedBefore), limit, limit, owner, now, until)
}

// CataloguesDue implements store.Store.
func (d *DB) CataloguesDue(ctx context.Context, limit int) ([]store.Feed, error) {
	return d.feeds(ctx, `SELECT `+feedCols+` FROM feeds WHERE catalogue IN ('none', 'pending', 'interrupted') AND state = 'active'
		AND last_read <> 0 ORDER BY id LIMIT $1`, limit)
}

func (d *DB) feeds(ctx context.Context, q string, args ...any) ([]store.Feed, error) {
	var out []store.Feed
	err := d.each(ctx, q, args, func(rows *sql.Rows) error {
		f, err := scanFeed(rows)
		out = append(out, f)
		return err
	})
	return out, err
}
