package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// PutOrigin records an origin's robots.txt status and standing, replacing
// what was recorded.
func (d *DB) PutOrigin(ctx context.Context, o model.Origin) error {
	_, err := d.w.ExecContext(ctx, `INSERT INTO origins(origin, status, state, checked, blocked) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT(origin) DO UPDATE SET status = excluded.status, state = excluded.state, checked = excluded.checked,
		blocked = excluded.blocked`,
		o.Origin, o.Status, o.State, ts(o.Checked), b2i(o.Blocked))
	if err != nil {
		return fmt.Errorf("put origin %s: %w", o.Origin, err)
	}
	return nil
}

// UpdateOriginStanding sets the state, check time and blocked bit of an
// origin already recorded (its status, the HTTP status
// of the read, is the crawl's to record); an origin not recorded yet is
// left to the crawl's discovery.
func (d *DB) UpdateOriginStanding(ctx context.Context, o model.Origin) error {
	_, err := d.w.ExecContext(ctx, `UPDATE origins SET state = $2, checked = $3, blocked = $4 WHERE origin = $1`,
		o.Origin, o.State, ts(o.Checked), b2i(o.Blocked))
	if err != nil {
		return fmt.Errorf("update origin %s: %w", o.Origin, err)
	}
	return nil
}

// Origin is what PutOrigin recorded of origin; model.ErrNotFound when
// nothing.
func (d *DB) Origin(ctx context.Context, origin string) (model.Origin, error) {
	o := model.Origin{Origin: origin}
	var checked int64
	var blocked int
	err := d.r.QueryRowContext(ctx, `SELECT status, state, checked, blocked FROM origins WHERE origin = $1`, origin).
		Scan(&o.Status, &o.State, &checked, &blocked)
	if errors.Is(err, sql.ErrNoRows) {
		return o, fmt.Errorf("origin %s: %w", origin, model.ErrNotFound)
	}
	o.Checked, o.Blocked = tm(checked), blocked != 0
	return o, err
}

// Refusal is the stored 403 refusal standing of site (what the fetcher's
// refusal list keeps across runs); an unknown site has the zero state.
func (d *DB) Refusal(ctx context.Context, site string) (model.RefusalState, error) {
	var s model.RefusalState
	var asked int64
	err := d.lookup.QueryRowContext(ctx, `SELECT consecutive403, served, refused, last_asked FROM refusals WHERE site = $1`, site).
		Scan(&s.Consecutive403, &s.Served, &s.Refused, &asked)
	if errors.Is(err, sql.ErrNoRows) {
		return model.RefusalState{}, nil
	}
	if err != nil {
		return model.RefusalState{}, fmt.Errorf("refusal of %s: %w", site, err)
	}
	s.LastAsked = tm(asked)
	return s, nil
}

// PutRefusal stores the 403 refusal standing of site.
func (d *DB) PutRefusal(ctx context.Context, site string, s model.RefusalState) error {
	_, err := d.w.ExecContext(ctx, `INSERT INTO refusals(site, consecutive403, served, refused, last_asked) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT(site) DO UPDATE SET consecutive403 = excluded.consecutive403, served = excluded.served,
		refused = excluded.refused, last_asked = excluded.last_asked`,
		site, s.Consecutive403, s.Served, s.Refused, ts(s.LastAsked))
	if err != nil {
		return fmt.Errorf("put refusal of %s: %w", site, err)
	}
	return nil
}

// LogRequests appends recs to the request log, in one transaction.
func (d *DB) LogRequests(ctx context.Context, recs []model.RequestRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return d.tx(ctx, func(tx conn) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO requests(site, url, purpose, status, bytes, start, duration, conditional, outcome, error)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range recs {
			msg := ""
			if r.Err != nil {
				msg = noNUL(r.Err.Error())
			}
			if _, err := st.ExecContext(ctx, r.Site, r.URL, string(r.Purpose), r.Status, r.Bytes, ts(r.Start),
				int64(r.Duration), r.Conditional, string(r.Outcome), msg); err != nil {
				return err
			}
		}
		return nil
	})
}

// RequestCount counts logged requests, by purpose when purpose != "".
func (d *DB) RequestCount(ctx context.Context, purpose model.Purpose) (int, error) {
	var n int
	var err error
	if purpose == "" {
		err = d.r.QueryRowContext(ctx, `SELECT count(*) FROM requests`).Scan(&n)
	} else {
		err = d.r.QueryRowContext(ctx, `SELECT count(*) FROM requests WHERE purpose = $1`, string(purpose)).Scan(&n)
	}
	return n, err
}

// PruneRequests deletes at most limit request-log rows that started before
// before, oldest first, in one small transaction, so that pruning never
// holds the writer for long, and says how many it deleted.
func (d *DB) PruneRequests(ctx context.Context, before time.Time, limit int) (int64, error) {
	res, err := d.w.ExecContext(ctx, `DELETE FROM requests WHERE id IN (
		SELECT id FROM requests WHERE start < $1 ORDER BY start LIMIT $2)`, ts(before), limit)
	if err != nil {
		return 0, fmt.Errorf("prune request log: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
