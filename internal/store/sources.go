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

const sourceCols = `id, url, added, discovered, sitemaps_checked, site, discover_after, sitemaps_after, attempts, error`

func scanSource(sc interface{ Scan(...any) error }) (Source, error) {
	var s Source
	var added, disc, smc, discAfter, smAfter int64
	if err := sc.Scan(&s.ID, &s.URL, &added, &disc, &smc, &s.Site, &discAfter, &smAfter, &s.Attempts, &s.Error); err != nil {
		return s, err
	}
	s.Added, s.Discovered, s.SitemapsChecked = tm(added), tm(disc), tm(smc)
	s.DiscoverAfter, s.SitemapsAfter = tm(discAfter), tm(smAfter)
	return s, nil
}

// AddSource stores a source unless one with the same identity is stored, and
// returns the stored one; the bool says whether it was new. A URL that
// cannot be a source (sourcelist.CheckURL: one with a user name or password,
// say) is refused here too, whoever the caller, so that no path stores a
// credential. Sources are keyed by their identity (sourcelist.Identity, in
// the unique column ident): adding any spelling of a stored source's
// homepage returns that source. A new source is stored under its URL key
// (sourcelist.SourceURL).
func (d *DB) AddSource(ctx context.Context, raw string, now time.Time) (Source, bool, error) {
	u, err := sourcelist.SourceURL(raw)
	if err != nil {
		return Source{}, false, fmt.Errorf("add source %s: %w", sourcelist.Redact(raw), err)
	}
	ident, err := sourcelist.Identity(u)
	if err != nil {
		return Source{}, false, fmt.Errorf("add source %s: %w", u, err)
	}
	// A source of a site that opted out starts paused, as the opt-out form
	// promises: nothing of it is ever fetched.
	site := model.SiteOfURL(u)
	var s Source
	var added bool
	err = d.tx(ctx, func(tx conn) error {
		var paused int
		var by string
		var at int64
		err := tx.QueryRowContext(ctx, `SELECT opted_by FROM opted_out WHERE site = $1`, site).Scan(&by)
		switch {
		case err == nil:
			paused, at = 1, ts(now)
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("add source %s: %w", u, err)
		}
		// Either unique key (ident, or url for a row stored before
		// identities and not yet given one) means the source is known.
		res, err := tx.ExecContext(ctx, `INSERT INTO sources(url, ident, added, site, paused, paused_by, paused_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT DO NOTHING`, u, ident, ts(now), site, paused, by, at)
		if err != nil {
			return fmt.Errorf("add source %s: %w", u, err)
		}
		n, _ := res.RowsAffected()
		s, err = scanSource(tx.QueryRowContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE ident = $1`, ident))
		if errors.Is(err, sql.ErrNoRows) {
			s, err = scanSource(tx.QueryRowContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE url = $1`, u))
		}
		if err != nil {
			return fmt.Errorf("add source %s: %w", u, err)
		}
		added = n == 1
		if !added {
			// A source the operator removed (RemoveSources) is added
			// again: it is a source once more, as a new one would be.
			var back bool
			if back, err = unremove(ctx, tx, s.ID, paused != 0, by, ts(now)); err != nil {
				return fmt.Errorf("add source %s: %w", u, err)
			}
			added = back
		}
		return nil
	})
	if err != nil {
		return s, false, err
	}
	return s, added, nil
}

// unremove brings removed source id back into the crawl, reporting whether
// it was removed. Its removal's pause is undone: the pause is lifted if the
// operator's (removal or `sources pause`), and an owner's (a claim's, or the
// opt-out's) stays; a site that has opted out (optedOut, by) pauses it as it
// would a new source. Its feeds, sitemaps and posts, kept, are taken up
// where they were left: no state was lost, so no request is repeated.
func unremove(ctx context.Context, tx conn, id int64, optedOut bool, by string, now int64) (bool, error) {
	r, err := tx.ExecContext(ctx, `UPDATE sources SET removed = 0,
		paused = CASE WHEN $2 <> 0 THEN 1 WHEN paused_by = $3 THEN 0 ELSE paused END,
		paused_by = CASE WHEN $2 <> 0 AND (paused = 0 OR paused_by = $3) THEN $4 WHEN paused_by = $3 THEN '' ELSE paused_by END,
		paused_at = CASE WHEN $2 <> 0 AND (paused = 0 OR paused_by = $3) THEN $5 WHEN paused_by = $3 THEN 0 ELSE paused_at END
		WHERE id = $1 AND removed <> 0`, id, b2i(optedOut), model.PausedByOperator, by, now)
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n == 1, err
}

// Source is source id; model.ErrNotFound when there is none.
func (d *DB) Source(ctx context.Context, id int64) (Source, error) {
	s, err := scanSource(d.lookup.QueryRowContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("source %d: %w", id, model.ErrNotFound)
	}
	return s, err
}

// EachSource calls fn with every source, by ID, a page at a time
// (eachPage).
func (d *DB) EachSource(ctx context.Context, fn func(Source) error) error {
	return eachPage(ctx, d, `SELECT `+sourceCols+` FROM sources WHERE id > $1 ORDER BY id LIMIT $2`, scanSource, func(s Source) int64 { return s.ID }, fn)
}

// SourcesToDiscover lists sources whose discovery is due
// (discoveryDue), by ID.
func (d *DB) SourcesToDiscover(ctx context.Context, now time.Time, limit int) ([]Source, error) {
	return d.sources(ctx, d.r, `SELECT `+sourceCols+` FROM sources s WHERE `+discoveryDue("s", "$1")+` AND `+sourceLive("s")+`
		ORDER BY id LIMIT $2`, ts(now), limit)
}

// PostponeDiscovery keeps a source out of SourcesToDiscover until r.At: its
// robots.txt or homepage could not be read, and a source is not judged
// feedless on a failure. r.Attempts and r.Error record why.
func (d *DB) PostponeDiscovery(ctx context.Context, id int64, r Retry) error {
	_, err := d.w.ExecContext(ctx, `UPDATE sources SET discover_after = $1, attempts = $3, error = $4 WHERE id = $2`,
		ts(r.At), id, r.Attempts, noNUL(r.Error))
	return err
}

// PostponeSitemaps is PostponeDiscovery for sitemap discovery.
func (d *DB) PostponeSitemaps(ctx context.Context, id int64, r Retry) error {
	_, err := d.w.ExecContext(ctx, `UPDATE sources SET sitemaps_after = $1, attempts = $3, error = $4 WHERE id = $2`,
		ts(r.At), id, r.Attempts, noNUL(r.Error))
	return err
}

// MarkDiscovered records that a source's robots.txt and feeds were looked
// for at now, and releases its checkout.
func (d *DB) MarkDiscovered(ctx context.Context, id int64, now time.Time) error {
	_, err := d.w.ExecContext(ctx, `UPDATE sources SET discovered = $1, attempts = 0, error = '' WHERE id = $2`, ts(now), id)
	return err
}

// SourcesForSitemaps lists sources whose sitemap discovery is due
// (sitemapDiscoveryDue), by ID; truncated keeps only those whose feed
// cannot reach the archive: no active feed, or every active feed's
// catalogue walk done (all a feed can reach is then read).
func (d *DB) SourcesForSitemaps(ctx context.Context, truncated bool, now time.Time, limit int) ([]Source, error) {
	q := `SELECT ` + sourceCols + ` FROM sources s WHERE ` + sitemapDiscoveryDue("s", "$1") + ` AND ` + sourceLive("s")
	if truncated {
		q += ` AND NOT EXISTS (SELECT 1 FROM feeds f WHERE f.source_id = s.id AND f.state = ` + sqlFeedActive + ` AND f.catalogue <> ` + sqlCatalogueDone + `)`
	}
	return d.sources(ctx, d.r, q+` ORDER BY id LIMIT $2`, ts(now), limit)
}

// MarkSitemapsChecked records that a source's sitemaps were looked for at
// now, and releases its checkout.
func (d *DB) MarkSitemapsChecked(ctx context.Context, id int64, now time.Time) error {
	_, err := d.w.ExecContext(ctx, `UPDATE sources SET sitemaps_checked = $1, attempts = 0, error = '' WHERE id = $2`, ts(now), id)
	return err
}

func (d *DB) sources(ctx context.Context, c conn, q string, args ...any) ([]Source, error) {
	return collect(ctx, d, c, q, args, scanSource)
}

// collect runs a read query and returns its rows, each read by scan.
func collect[T any](ctx context.Context, d *DB, c conn, q string, args []any, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	var out []T
	err := d.each(ctx, c, q, args, func(rows *sql.Rows) error {
		v, err := scan(rows)
		out = append(out, v)
		return err
	})
	return out, err
}

// eachPageSize is how many rows one statement of eachPage reads.
const eachPageSize = 256

// eachPage calls fn with every row of query q (its placeholders $1, the
// last ID read, and $2, the page size; in ID order), a page at a time,
// each page its own statement, a row in memory at a time. A reader as slow
// as what it feeds (an export writing to a pipe) then holds a snapshot
// only as long as one page takes: one statement held open for a whole
// export kept PostgreSQL from removing the rows the crawl replaced
// meanwhile, and the frontier's due-page index scans walked them all, 187
// ms a call over an hour (BenchmarkPostgresScale); on SQLite it
// keeps the WAL from being checkpointed.
func eachPage[T any](ctx context.Context, d *DB, q string, scan func(interface{ Scan(...any) error }) (T, error), id func(T) int64, fn func(T) error) error {
	var after int64
	for {
		n := 0
		err := d.each(ctx, d.r, q, []any{after, eachPageSize}, func(rows *sql.Rows) error {
			v, err := scan(rows)
			if err != nil {
				return err
			}
			n, after = n+1, id(v)
			return fn(v)
		})
		if err != nil || n < eachPageSize {
			return err
		}
	}
}

// each runs a read query and calls fn per row.
func (d *DB) each(ctx context.Context, c conn, q string, args []any, fn func(*sql.Rows) error) error {
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
