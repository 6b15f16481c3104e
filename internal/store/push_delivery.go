package store

import (
	"context"
	"database/sql"
	"fmt"
)

// How sources' new posts reach us, for the public site: pushed (WebSub),
// polled, or both (Push, web.DeliveryData).

// deliveryQuery counts, per source with an active feed, its active feeds
// with and without an active subscription.
const deliveryQuery = `SELECT f.source_id,
		SUM(CASE WHEN s.state = ` + sqlSubscriptionActive + ` THEN 1 ELSE 0 END),
		SUM(CASE WHEN s.state = ` + sqlSubscriptionActive + ` THEN 0 ELSE 1 END)
	FROM feeds f LEFT JOIN subscriptions s ON s.feed_id = f.id
	JOIN sources src ON src.id = f.source_id
	WHERE f.state = ` + sqlFeedActive + ` AND src.paused = 0`

// delivery names a source's way from its feed counts.
func delivery(pushed, polled int64) string {
	switch {
	case pushed > 0 && polled > 0:
		return "both"
	case pushed > 0:
		return "pushed"
	}
	return "polled"
}

// Deliveries implements Push.
func (d *DB) Deliveries(ctx context.Context) (pushed, polled, both int, err error) {
	err = d.each(ctx, d.r, deliveryQuery+` GROUP BY f.source_id`, nil, func(rows *sql.Rows) error {
		var id, p, q int64
		if err := rows.Scan(&id, &p, &q); err != nil {
			return err
		}
		switch delivery(p, q) {
		case "both":
			both++
		case "pushed":
			pushed++
		default:
			polled++
		}
		return nil
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("deliveries: %w", err)
	}
	return pushed, polled, both, nil
}

// SiteDelivery implements Push.
func (d *DB) SiteDelivery(ctx context.Context, site string) (map[int64]string, error) {
	out := map[int64]string{}
	err := d.each(ctx, d.r, deliveryQuery+` AND src.site = $1 GROUP BY f.source_id`, []any{site}, func(rows *sql.Rows) error {
		var id, p, q int64
		if err := rows.Scan(&id, &p, &q); err != nil {
			return err
		}
		out[id] = delivery(p, q)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("site delivery %s: %w", site, err)
	}
	return out, nil
}
