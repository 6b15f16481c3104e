package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

const feedCols = `id, source_id, url, state, etag, last_modified, last_read, checked, error, catalogue, next_page, pages, title, history, next_due, attempts, retry_at`

func scanFeed(sc interface{ Scan(...any) error }) (Feed, error) {
	var f Feed
	var read, checked, next, retry int64
	err := sc.Scan(&f.ID, &f.SourceID, &f.URL, &f.State, &f.ETag, &f.LastModified, &read, &checked, &f.Error, &f.Catalogue, &f.NextPage, &f.Pages,
		&f.Title, &f.History, &next, &f.Attempts, &retry)
	f.LastRead, f.Checked, f.NextDue, f.RetryAt = tm(read), tm(checked), tm(next), tm(retry)
	return f, err
}

// AddFeed stores a feed unless its URL is known, and returns the stored one.
// A feed URL a site names with user information is stored without it, as a
// post's URL is (urlkey): the fetcher sends none, and a stored URL is
// published.
func (d *DB) AddFeed(ctx context.Context, f Feed) (Feed, error) {
	f.URL = scrub(f.URL)
	if f.State == "" {
		f.State = model.FeedActive
	}
	if f.Catalogue == "" {
		f.Catalogue = model.CatalogueNone
	}
	// A feed that moved is found by its old URL too.
	var moved int64
	err := d.r.QueryRowContext(ctx, `SELECT target FROM url_aliases WHERE kind = 'feed' AND url = $1`, f.URL).Scan(&moved)
	switch {
	case err == nil:
		return scanFeed(d.r.QueryRowContext(ctx, `SELECT `+feedCols+` FROM feeds WHERE id = $1`, moved))
	case !errors.Is(err, sql.ErrNoRows):
		return f, fmt.Errorf("add feed %s: %w", f.URL, err)
	}
	out := f
	err = d.tx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO feeds(source_id, url, state, catalogue) VALUES ($1, $2, $3, $4) ON CONFLICT(url) DO NOTHING`,
			f.SourceID, f.URL, f.State, f.Catalogue)
		if err != nil {
			return fmt.Errorf("add feed %s: %w", f.URL, err)
		}
		out, err = scanFeed(tx.QueryRowContext(ctx, `SELECT `+feedCols+` FROM feeds WHERE url = $1`, f.URL))
		return err
	})
	return out, err
}

// UpdateFeed stores f's standing and progress.
func (d *DB) UpdateFeed(ctx context.Context, f Feed) error {
	return d.tx(ctx, func(tx conn) error { return d.updateFeed(ctx, tx, f) })
}

// updateFeed stores f's standing.
func (d *DB) updateFeed(ctx context.Context, tx conn, f Feed) error {
	_, err := tx.ExecContext(ctx, `UPDATE feeds SET state = $1, etag = $2, last_modified = $3, last_read = $4, checked = $5,
		error = $6, catalogue = $7, next_page = $8, pages = $9,
		title = CASE WHEN $11 <> '' THEN $11 ELSE title END, history = $12, next_due = $13, attempts = $14, retry_at = $15 WHERE id = $10`,
		f.State, f.ETag, f.LastModified, ts(f.LastRead), ts(f.Checked), noNUL(f.Error), f.Catalogue, f.NextPage, f.Pages, f.ID,
		noNUL(f.Title), f.History, ts(f.NextDue), f.Attempts, ts(f.RetryAt))
	if err != nil {
		return fmt.Errorf("update feed %s: %w", f.URL, err)
	}
	return nil
}

// SourceFeeds lists a source's feeds, by ID.
func (d *DB) SourceFeeds(ctx context.Context, sourceID int64) ([]Feed, error) {
	return d.feeds(ctx, d.r, `SELECT `+feedCols+` FROM feeds WHERE source_id = $1 ORDER BY id`, sourceID)
}

// FeedsDue lists feeds to read (feedPollDue: active feeds whose NextDue
// is not after now, errored ones last tried before errorBefore, disallowed
// ones last tried before disallowedBefore), the longest overdue first.
// Each state is its own index range, so the choice costs a few index seeks
// however many feeds there are; the condition itself is repeated outside
// the union, as a CASE, which no planner turns into an index scan.
func (d *DB) FeedsDue(ctx context.Context, now, errorBefore, disallowedBefore time.Time, limit int) ([]Feed, error) {
	return d.feedsDue(ctx, now, errorBefore, disallowedBefore, limit, "")
}

// PollsDue is FeedsDue without the feeds never tried, whose first read
// belongs to their source's discovery.
func (d *DB) PollsDue(ctx context.Context, now, errorBefore, disallowedBefore time.Time, limit int) ([]Feed, error) {
	return d.feedsDue(ctx, now, errorBefore, disallowedBefore, limit, " AND checked <> 0")
}

// feedsDue is FeedsDue with an extra condition on the active feeds.
func (d *DB) feedsDue(ctx context.Context, now, errorBefore, disallowedBefore time.Time, limit int, activeCond string) ([]Feed, error) {
	// How long each is overdue, so that the three kinds share one order.
	overdue := `CASE state WHEN ` + sqlFeedActive + ` THEN $4 - next_due WHEN ` + sqlFeedError + ` THEN $1 - checked ELSE $2 - checked END`
	live := ` AND ` + itemLive("feeds")
	out, err := d.feeds(ctx, d.r, `SELECT `+feedCols+` FROM feeds f WHERE f.id IN (
			SELECT id FROM (SELECT id FROM feeds WHERE state = `+sqlFeedActive+` AND next_due <= $4 AND retry_at <= $4`+activeCond+live+` ORDER BY next_due LIMIT $3) a
			UNION ALL SELECT id FROM (SELECT id FROM feeds WHERE state = `+sqlFeedError+` AND checked < $1`+live+` ORDER BY checked LIMIT $3) e
			UNION ALL SELECT id FROM (SELECT id FROM feeds WHERE state = `+sqlFeedDisallowed+` AND checked < $2`+live+` ORDER BY checked LIMIT $3) d)
		AND `+feedPollDue("f", "$4", "$1", "$2")+`
		ORDER BY `+overdue+` DESC, id LIMIT $3`, ts(errorBefore), ts(disallowedBefore), limit, ts(now))
	if err != nil {
		return nil, fmt.Errorf("feeds due: %w", err)
	}
	return out, nil
}

// FeedHistories lists the History of every active feed, for the
// schedule's calibration.
func (d *DB) FeedHistories(ctx context.Context) ([]string, error) {
	var out []string
	err := d.each(ctx, d.r, `SELECT history FROM feeds WHERE state = `+sqlFeedActive+``, nil, func(rows *sql.Rows) error {
		var h string
		err := rows.Scan(&h)
		out = append(out, h)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("feed histories: %w", err)
	}
	return out, nil
}

// CataloguesDue lists active feeds whose catalogue walk is due
// (catalogueDue), by ID.
func (d *DB) CataloguesDue(ctx context.Context, now time.Time, limit int) ([]Feed, error) {
	return d.feeds(ctx, d.r, `SELECT `+feedCols+` FROM feeds f WHERE `+catalogueDue("f", "$1")+` AND `+itemLive("f")+` ORDER BY f.id LIMIT $2`, ts(now), limit)
}

func (d *DB) feeds(ctx context.Context, c conn, q string, args ...any) ([]Feed, error) {
	return collect(ctx, d, c, q, args, scanFeed)
}

// MoveFeed records that feed id lives at url now (it moved for good: a 301
// or 308); its old URL stays as an alias, so that a page still naming it
// finds the same record. A feed already held at the new URL (the site's
// homepage named both) keeps it; this one then stays where it was.
func (d *DB) MoveFeed(ctx context.Context, id int64, url string) error {
	return d.tx(ctx, func(tx conn) error {
		var old string
		if err := tx.QueryRowContext(ctx, `SELECT url FROM feeds WHERE id = $1`, id).Scan(&old); err != nil {
			return fmt.Errorf("move feed %d: %w", id, err)
		}
		var other int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM feeds WHERE url = $1`, url).Scan(&other)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE feeds SET url = $1 WHERE id = $2`, url, id); err != nil {
			return fmt.Errorf("move feed %s: %w", old, err)
		}
		return addAlias(ctx, tx, aliasFeed, old, id)
	})
}
