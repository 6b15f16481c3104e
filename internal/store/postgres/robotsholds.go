package postgres

import (
	"context"
	"fmt"
	"time"
)

// HoldRobotsRefresh takes origin's robots.txt refresh for holder until the
// given time (a robots_claims row), unless another holder's row is still
// live at now; a row holder has already counts, and is extended. With it
// the workers of a cluster read each origin's robots.txt once between
// them (fetch.RobotsHold).
func (d *DB) HoldRobotsRefresh(ctx context.Context, origin, holder string, now, until time.Time) (bool, error) {
	r, err := d.db.ExecContext(ctx, `INSERT INTO robots_claims AS c (origin, holder, expires) VALUES ($1, $2, $3)
		ON CONFLICT (origin) DO UPDATE SET holder = $2, expires = $3 WHERE c.holder = $2 OR c.expires <= $4`,
		origin, holder, ts(until), ts(now))
	if err != nil {
		return false, fmt.Errorf("hold robots refresh of %s: %w", origin, err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("hold robots refresh of %s: %w", origin, err)
	}
	return n == 1, nil
}

// ReleaseRobotsRefresh ends holder's hold on origin's refresh, if any.
func (d *DB) ReleaseRobotsRefresh(ctx context.Context, origin, holder string) error {
	if _, err := d.db.ExecContext(ctx, `DELETE FROM robots_claims WHERE origin = $1 AND holder = $2`, origin, holder); err != nil {
		return fmt.Errorf("release robots refresh of %s: %w", origin, err)
	}
	return nil
}
