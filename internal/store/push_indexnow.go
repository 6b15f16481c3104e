package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// IndexNow's store side (Push): which hosts we hold, and submitted
// URLs made due for a conditional page fetch.

// IndexNowHolds implements Push.
func (d *DB) IndexNowHolds(ctx context.Context, host string) (bool, error) {
	site := model.SiteOfURL("https://" + host + "/")
	if site == "" {
		return false, nil
	}
	var one int
	err := d.r.QueryRowContext(ctx, `SELECT 1 FROM sources WHERE site = $1 AND paused = 0 LIMIT 1`, site).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("indexnow holds %s: %w", host, err)
	}
	return true, nil
}

// IndexNowDue implements Push. A known post keeps its ETag and
// Last-Modified, so the page job's fetch is conditional: a page that did
// not change costs a 304.
func (d *DB) IndexNowDue(ctx context.Context, now time.Time, urls []string) (int, error) {
	n := 0
	err := d.tx(ctx, func(tx conn) error {
		n = 0
		sp := newSpellings()
		for _, raw := range urls {
			raw, err := postKey(ctx, tx, sp, raw)
			if err != nil {
				return err
			}
			r, err := tx.ExecContext(ctx, `UPDATE posts SET due = 1 WHERE url = $1
				AND source_id NOT IN (SELECT id FROM sources WHERE paused <> 0)`, raw)
			if err != nil {
				return fmt.Errorf("mark %s due: %w", raw, err)
			}
			if k, _ := r.RowsAffected(); k > 0 {
				n++
				continue
			}
			var exists int
			err = tx.QueryRowContext(ctx, `SELECT 1 FROM posts WHERE url = $1`, raw).Scan(&exists)
			if err == nil {
				continue // a post of a paused source: nothing is fetched
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			src, ok, err := sourceForURL(ctx, tx, raw)
			if err != nil || !ok {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO posts(url, source_id, state, due, first_seen) VALUES ($1, $2, `+sqlPostPending+`, 1, $3)
				ON CONFLICT(url) DO NOTHING`, raw, src, ts(now)); err != nil {
				return fmt.Errorf("add %s: %w", raw, err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// sourceForURL is the source a new URL belongs to: of its site, not
// paused, the one on the same host first, then the oldest.
func sourceForURL(ctx context.Context, tx conn, raw string) (int64, bool, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return 0, false, nil
	}
	host := strings.ToLower(u.Host)
	var id int64
	var srcURL string
	found := false
	err = eachUntil(ctx, tx, `SELECT id, url FROM sources WHERE site = $1 AND paused = 0 ORDER BY id`, []any{model.SiteOfURL(raw)}, func(rows *sql.Rows) (bool, error) {
		var sid int64
		if err := rows.Scan(&sid, &srcURL); err != nil {
			return false, err
		}
		if !found {
			id, found = sid, true
		}
		if su, err := url.Parse(srcURL); err == nil && strings.EqualFold(su.Host, host) {
			id = sid
			return false, nil
		}
		return true, nil
	})
	return id, found, err
}

// eachUntil is DB.each whose fn can stop early (more false).
func eachUntil(ctx context.Context, c conn, q string, args []any, fn func(*sql.Rows) (more bool, err error)) error {
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		more, err := fn(rows)
		if err != nil || !more {
			return err
		}
	}
	return rows.Err()
}
