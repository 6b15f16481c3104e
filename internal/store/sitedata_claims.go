package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Site claims (model.Claim) live in site_claims; they are owners' requests
// to manage a site, unrelated to the work checkouts of checkouts.go.

// CreateClaim implements web.OwnersData: the primary key refuses an existing ID.
func (s *SiteData) CreateClaim(ctx context.Context, c model.Claim) error {
	_, err := s.db.w.ExecContext(ctx, `INSERT INTO site_claims(id, site, token, created, expires, verified, method)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, c.ID, c.Site, c.Token, ts(c.Created), ts(c.Expires), ts(c.Verified), c.Method)
	if err != nil {
		return fmt.Errorf("create claim for %s: %w", c.Site, err)
	}
	return nil
}

// Claim implements web.OwnersData.
func (s *SiteData) Claim(ctx context.Context, id string) (model.Claim, error) {
	c := model.Claim{ID: id}
	var created, expires, verified int64
	err := s.db.r.QueryRowContext(ctx, `SELECT site, token, created, expires, verified, method FROM site_claims WHERE id = $1`, id).
		Scan(&c.Site, &c.Token, &created, &expires, &verified, &c.Method)
	if errors.Is(err, sql.ErrNoRows) {
		return model.Claim{}, fmt.Errorf("claim: %w", model.ErrNotFound)
	}
	if err != nil {
		return model.Claim{}, fmt.Errorf("claim: %w", err)
	}
	c.Created, c.Expires, c.Verified = tm(created), tm(expires), tm(verified)
	return c, nil
}

// MarkClaimVerified implements web.OwnersData.
func (s *SiteData) MarkClaimVerified(ctx context.Context, id, method string, now time.Time) error {
	r, err := s.db.w.ExecContext(ctx, `UPDATE site_claims SET verified = $1, method = $2 WHERE id = $3`, ts(now), method, id)
	return matched(r, err, "verify claim")
}
