package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// The WebSub subscriptions (Push). One row per feed; the crawler's
// state machine (package push, crawl push*.go) decides, this only keeps.

var _ Push = (*DB)(nil)

const subCols = `callback, feed_id, source_id, hub, topic, secret, state, lease, requested, verified, expires, next_action,
	attempts, error, deliveries, delivered, (SELECT paused FROM sources WHERE id = subscriptions.source_id)`

func scanSub(sc interface{ Scan(...any) error }) (Subscription, error) {
	var s Subscription
	var lease, req, ver, exp, next, deliv int64
	var paused sql.NullInt64
	err := sc.Scan(&s.Callback, &s.FeedID, &s.SourceID, &s.Hub, &s.Topic, &s.Secret, &s.State, &lease, &req, &ver, &exp, &next,
		&s.Attempts, &s.Error, &s.Deliveries, &deliv, &paused)
	s.Lease = time.Duration(lease)
	s.Requested, s.Verified, s.Expires, s.NextAction, s.Delivered = tm(req), tm(ver), tm(exp), tm(next), tm(deliv)
	s.SourcePaused = paused.Int64 != 0
	return s, err
}

// WantSubscription implements Push.
func (d *DB) WantSubscription(ctx context.Context, s Subscription) (Subscription, error) {
	var out Subscription
	err := d.tx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO subscriptions(callback, feed_id, source_id, hub, topic, secret, state, next_action)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT(feed_id) DO NOTHING`,
			s.Callback, s.FeedID, s.SourceID, s.Hub, s.Topic, s.Secret, s.State, ts(s.NextAction))
		if err != nil {
			return err
		}
		// A feed that moved to another hub or topic starts over there; the
		// old subscription lapses at its lease's end.
		_, err = tx.ExecContext(ctx, `UPDATE subscriptions SET hub = $1, topic = $2, state = $3, next_action = $4, attempts = 0,
			error = '', expires = 0, verified = 0, requested = 0 WHERE feed_id = $5 AND (hub <> $1 OR topic <> $2)`,
			s.Hub, s.Topic, s.State, ts(s.NextAction), s.FeedID)
		if err != nil {
			return err
		}
		out, err = scanSub(tx.QueryRowContext(ctx, `SELECT `+subCols+` FROM subscriptions WHERE feed_id = $1`, s.FeedID))
		return err
	})
	if err != nil {
		return out, fmt.Errorf("want subscription of feed %d: %w", s.FeedID, err)
	}
	return out, nil
}

// Subscription implements Push.
func (d *DB) Subscription(ctx context.Context, callback string) (Subscription, error) {
	return d.oneSub(ctx, `callback = $1`, callback)
}

// FeedSubscription implements Push.
func (d *DB) FeedSubscription(ctx context.Context, feedID int64) (Subscription, error) {
	return d.oneSub(ctx, `feed_id = $1`, feedID)
}

func (d *DB) oneSub(ctx context.Context, cond string, arg any) (Subscription, error) {
	s, err := scanSub(d.r.QueryRowContext(ctx, `SELECT `+subCols+` FROM subscriptions WHERE `+cond, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("subscription %v: %w", arg, model.ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("subscription %v: %w", arg, err)
	}
	return s, nil
}

// PutSubscription implements Push.
func (d *DB) PutSubscription(ctx context.Context, s Subscription) error {
	_, err := d.w.ExecContext(ctx, `UPDATE subscriptions SET hub = $1, topic = $2, secret = $3, state = $4, lease = $5, requested = $6,
		verified = $7, expires = $8, next_action = $9, attempts = $10, error = $11, held_until = 0 WHERE callback = $12`,
		s.Hub, s.Topic, s.Secret, s.State, int64(s.Lease), ts(s.Requested), ts(s.Verified), ts(s.Expires), ts(s.NextAction),
		s.Attempts, noNUL(s.Error), s.Callback)
	if err != nil {
		return fmt.Errorf("put subscription %s: %w", s.Callback, err)
	}
	return nil
}

// SubscriptionsDue implements Push. Each row is handed out by setting its
// held_until, which only one worker can do while the last hold runs;
// PutSubscription gives it back.
func (d *DB) SubscriptionsDue(ctx context.Context, now, checkoutUntil time.Time, limit int) ([]Subscription, error) {
	var out []Subscription
	err := d.tx(ctx, func(tx conn) error {
		var cands []Subscription
		err := d.each(ctx, tx, `SELECT `+subCols+` FROM subscriptions WHERE held_until < $1 AND (next_action <= $1
			OR (state IN `+sqlSubscriptionsLive+` AND source_id IN (SELECT id FROM sources WHERE paused <> 0)))
		ORDER BY next_action, callback LIMIT $2`,
			[]any{ts(now), limit}, func(rows *sql.Rows) error {
				s, err := scanSub(rows)
				cands = append(cands, s)
				return err
			})
		if err != nil {
			return fmt.Errorf("subscriptions due: %w", err)
		}
		out = nil
		for _, s := range cands {
			r, err := tx.ExecContext(ctx, `UPDATE subscriptions SET held_until = $1 WHERE callback = $2 AND held_until < $3`,
				ts(checkoutUntil), s.Callback, ts(now))
			if err != nil {
				return fmt.Errorf("hold subscription %s: %w", s.Callback, err)
			}
			if n, _ := r.RowsAffected(); n == 1 {
				out = append(out, s)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PushRead implements Push.
func (d *DB) PushRead(ctx context.Context, callback string, now time.Time, posts []NewPost, update func(AddResult) Feed) (AddResult, error) {
	var res AddResult
	err := d.tx(ctx, func(tx conn) error {
		var err error
		if res, err = addPosts(ctx, tx, posts); err != nil {
			return err
		}
		f := update(res)
		if _, err := tx.ExecContext(ctx, `UPDATE feeds SET state = $1, error = $2, last_read = $3, checked = $4,
			title = CASE WHEN $5 <> '' THEN $5 ELSE title END, history = $6, next_due = $7 WHERE id = $8`,
			f.State, f.Error, ts(f.LastRead), ts(f.Checked), noNUL(f.Title), f.History, ts(f.NextDue), f.ID); err != nil {
			return fmt.Errorf("update feed %s: %w", f.URL, err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE subscriptions SET deliveries = deliveries + 1, delivered = $1 WHERE callback = $2`, ts(now), callback)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("push read %s: %w", callback, err)
	}
	return res, nil
}
