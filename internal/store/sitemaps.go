package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

const sitemapCols = `id, source_id, url, via, parent_id, state, etag, last_modified, last_read, lastmod, read_lastmod, error, attempts, retry_at,
	kind, skipped_pages, skipped_taxonomies, skipped_authors, skipped_other, note`

func scanSitemap(sc interface{ Scan(...any) error }) (Sitemap, error) {
	var s Sitemap
	var read, lm, rlm, retry int64
	err := sc.Scan(&s.ID, &s.SourceID, &s.URL, &s.Via, &s.ParentID, &s.State, &s.ETag, &s.LastModified, &read, &lm, &rlm, &s.Error, &s.Attempts, &retry,
		&s.Kind, &s.SkippedPages, &s.SkippedTaxonomies, &s.SkippedAuthors, &s.SkippedOther, &s.Note)
	s.LastRead, s.Lastmod, s.ReadLastmod, s.RetryAt = tm(read), tm(lm), tm(rlm), tm(retry)
	return s, err
}

// AddSitemap stores a sitemap and returns the stored one: known (source,
// URL) pairs are kept (their state and kind are the crawl's to change, by
// UpdateSitemap), but a child's lastmod as its index now states it is
// recorded. A URL with user information is stored without it, as AddFeed
// does.
func (d *DB) AddSitemap(ctx context.Context, s Sitemap) (Sitemap, error) {
	s.URL = scrub(s.URL)
	if s.State == "" {
		s.State = model.SitemapActive
	}
	out := s
	err := d.tx(ctx, func(tx conn) error {
		// A sitemap that moved is found by its old URL too.
		var moved int64
		err := tx.QueryRowContext(ctx, `SELECT a.target FROM url_aliases a JOIN sitemaps m ON m.id = a.target
			WHERE a.kind = 'sitemap' AND a.url = $1 AND m.source_id = $2`, s.URL, s.SourceID).Scan(&moved)
		switch {
		case err == nil:
			out, err = scanSitemap(tx.QueryRowContext(ctx, `SELECT `+sitemapCols+` FROM sitemaps WHERE id = $1`, moved))
			return err
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("add sitemap %s: %w", s.URL, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sitemaps(source_id, url, via, parent_id, state, lastmod, kind) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT(source_id, url) DO UPDATE SET lastmod = CASE WHEN excluded.lastmod <> 0 THEN excluded.lastmod ELSE sitemaps.lastmod END`,
			s.SourceID, s.URL, s.Via, s.ParentID, s.State, ts(s.Lastmod), s.Kind)
		if err != nil {
			return fmt.Errorf("add sitemap %s: %w", s.URL, err)
		}
		out, err = scanSitemap(tx.QueryRowContext(ctx, `SELECT `+sitemapCols+` FROM sitemaps WHERE source_id = $1 AND url = $2`, s.SourceID, s.URL))
		return err
	})
	return out, err
}

// UpdateSitemap stores s's standing and what its last read found.
func (d *DB) UpdateSitemap(ctx context.Context, s Sitemap) error {
	_, err := d.w.ExecContext(ctx, `UPDATE sitemaps SET state = $1, etag = $2, last_modified = $3, last_read = $4, read_lastmod = $5, error = $6,
		attempts = $8, retry_at = $9, kind = $10, skipped_pages = $11, skipped_taxonomies = $12, skipped_authors = $13, skipped_other = $14,
		note = $15 WHERE id = $7`,
		s.State, s.ETag, s.LastModified, ts(s.LastRead), ts(s.ReadLastmod), noNUL(s.Error), s.ID, s.Attempts, ts(s.RetryAt),
		s.Kind, s.SkippedPages, s.SkippedTaxonomies, s.SkippedAuthors, s.SkippedOther, noNUL(s.Note))
	if err != nil {
		return fmt.Errorf("update sitemap %s: %w", s.URL, err)
	}
	return nil
}

// SourceSitemaps lists a source's top-level sitemaps.
//
// The unary + keeps parent_id out of the index choice: without ANALYZE
// statistics (the crawler never gathers them) SQLite otherwise walks
// sitemaps_parent's parent_id = 0, every top-level sitemap of every source,
// in id order, for the few of this one, a cost that grows with the corpus
// (2.7% of a full-size first pass's CPU). Through sitemaps_source_state it
// reads this source's sitemaps alone and sorts them. PostgreSQL reads +x as
// x.
func (d *DB) SourceSitemaps(ctx context.Context, sourceID int64) ([]Sitemap, error) {
	return d.sitemaps(ctx, d.r, `SELECT `+sitemapCols+` FROM sitemaps WHERE source_id = $1 AND +parent_id = 0 ORDER BY id`, sourceID)
}

// ChildSitemaps lists an index's children, newest lastmod first.
func (d *DB) ChildSitemaps(ctx context.Context, parentID int64) ([]Sitemap, error) {
	return d.sitemaps(ctx, d.r, `SELECT `+sitemapCols+` FROM sitemaps WHERE parent_id = $1 ORDER BY lastmod DESC, id`, parentID)
}

// SitemapsDue lists sitemaps due (sitemapDue), those not read since
// before first. With truncated, a source qualifies while it has a sitemap
// never read or sitemap-only posts not yet fetched: once its archive is
// filled in, it stops qualifying. A skipped sitemap is never due, and so
// never "never read": a source whose only unread sitemaps are taxonomies
// is not truncated by them.
func (d *DB) SitemapsDue(ctx context.Context, now, before time.Time, truncated bool, limit int) ([]Sitemap, error) {
	q := `SELECT ` + sitemapCols + ` FROM sitemaps m WHERE ` + sitemapDue("m", "$1", "$2") + ` AND ` + itemLive("m")
	if truncated {
		q += ` AND (m.last_read = 0 OR EXISTS (SELECT 1 FROM posts p WHERE p.source_id = m.source_id AND p.due = 1 AND p.in_feed = 0))`
	}
	out, err := d.sitemaps(ctx, d.r, q+` ORDER BY m.last_read, m.id LIMIT $3`, ts(now), ts(before), limit)
	if err != nil {
		return nil, fmt.Errorf("sitemaps due: %w", err)
	}
	return out, nil
}

func (d *DB) sitemaps(ctx context.Context, c conn, q string, args ...any) ([]Sitemap, error) {
	return collect(ctx, d, c, q, args, scanSitemap)
}

// MoveSitemap is MoveFeed for a sitemap; the alias is of the source's
// sitemap.
func (d *DB) MoveSitemap(ctx context.Context, id int64, url string) error {
	return d.tx(ctx, func(tx conn) error {
		var old string
		var src int64
		if err := tx.QueryRowContext(ctx, `SELECT url, source_id FROM sitemaps WHERE id = $1`, id).Scan(&old, &src); err != nil {
			return fmt.Errorf("move sitemap %d: %w", id, err)
		}
		var other int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM sitemaps WHERE source_id = $1 AND url = $2`, src, url).Scan(&other)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sitemaps SET url = $1 WHERE id = $2`, url, id); err != nil {
			return fmt.Errorf("move sitemap %s: %w", old, err)
		}
		return addAlias(ctx, tx, aliasSitemap, old, id)
	})
}
