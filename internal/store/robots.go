package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Robots is the stored robots.txt entry of origin (what the fetcher's
// robots cache keeps across runs and shares with a cluster's workers),
// model.ErrNotFound for an origin
// never stored. A missing file is NULL, so that an empty file (which
// allows everything) stays distinct from none.
func (d *DB) Robots(ctx context.Context, origin string) (model.RobotsRecord, error) {
	r := model.RobotsRecord{Origin: origin}
	var file, last sql.NullString
	var ttl, checked, expires, lastFetched, unreach int64
	err := d.lookup.QueryRowContext(ctx, `SELECT state, ttl, file, checked, expires, last_file, last_fetched, unreachable_since, etag, last_modified
		FROM robots_cache WHERE origin = $1`, origin).
		Scan(&r.State, &ttl, &file, &checked, &expires, &last, &lastFetched, &unreach, &r.ETag, &r.LastModified)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("robots %s: %w", origin, model.ErrNotFound)
	}
	if err != nil {
		return r, err
	}
	r.TTL = time.Duration(ttl)
	r.File, r.HasFile = file.String, file.Valid
	r.LastFile, r.HasLast = last.String, last.Valid
	r.Checked, r.Expires, r.LastFetched, r.UnreachableSince = tm(checked), tm(expires), tm(lastFetched), tm(unreach)
	return r, nil
}

// PutRobots stores r, replacing its origin's entry.
func (d *DB) PutRobots(ctx context.Context, r model.RobotsRecord) error {
	file := sql.NullString{String: r.File, Valid: r.HasFile}
	last := sql.NullString{String: r.LastFile, Valid: r.HasLast}
	_, err := d.w.ExecContext(ctx, `INSERT INTO robots_cache(origin, state, ttl, file, checked, expires, last_file, last_fetched,
		unreachable_since, etag, last_modified) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT(origin) DO UPDATE SET state = excluded.state, ttl = excluded.ttl, file = excluded.file, checked = excluded.checked,
		expires = excluded.expires, last_file = excluded.last_file, last_fetched = excluded.last_fetched,
		unreachable_since = excluded.unreachable_since, etag = excluded.etag, last_modified = excluded.last_modified`,
		r.Origin, r.State, int64(r.TTL), file, ts(r.Checked), ts(r.Expires), last, ts(r.LastFetched), ts(r.UnreachableSince), r.ETag, r.LastModified)
	if err != nil {
		return fmt.Errorf("put robots %s: %w", r.Origin, err)
	}
	return nil
}
