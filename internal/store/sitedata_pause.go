package store

import (
	"context"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// PauseSite implements web.OwnersData in one transaction: the site-level record
// (the first kept on a repeat, so the opt-out's date is the first one),
// then every source of the site not yet paused. From the commit on,
// AddSource starts the site's new sources paused and the batches (see
// notPaused) hand out nothing of it.
func (s *SiteData) PauseSite(ctx context.Context, site, by string, now time.Time) (model.PauseResult, error) {
	res := model.PauseResult{Site: site}
	err := s.db.tx(ctx, func(tx conn) error {
		res = model.PauseResult{Site: site}
		if _, err := tx.ExecContext(ctx, `INSERT INTO opted_out(site, opted_by, opted_at) VALUES ($1, $2, $3)
			ON CONFLICT(site) DO NOTHING`, site, by, ts(now)); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sources WHERE site = $1 AND paused <> 0`, site).Scan(&res.AlreadyPaused); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, `UPDATE sources SET paused = 1, paused_by = $1, paused_at = $2 WHERE site = $3 AND paused = 0`,
			by, ts(now), site)
		if err != nil {
			return err
		}
		n, err := r.RowsAffected()
		res.Paused = int(n)
		return err
	})
	if err != nil {
		return model.PauseResult{}, fmt.Errorf("pause site %s: %w", site, err)
	}
	return res, nil
}

// ResumeSite implements web.OwnersData, in one transaction. A source the
// operator removed (RemoveSources) stays paused: only adding it again
// brings it back.
func (s *SiteData) ResumeSite(ctx context.Context, site string) error {
	err := s.db.tx(ctx, func(tx conn) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM opted_out WHERE site = $1`, site); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sources SET paused = 0, paused_by = '', paused_at = 0 WHERE site = $1 AND removed = 0`, site)
		return err
	})
	if err != nil {
		return fmt.Errorf("resume site %s: %w", site, err)
	}
	return nil
}

// PauseSource implements web.OwnersData. A source already paused keeps who
// paused it and when (SET reads the row as it was), and still matches, so
// that no row matched means no such source.
func (s *SiteData) PauseSource(ctx context.Context, id int64, by string, now time.Time) error {
	r, err := s.db.w.ExecContext(ctx, `UPDATE sources SET
		paused_by = CASE WHEN paused <> 0 THEN paused_by ELSE $1 END,
		paused_at = CASE WHEN paused <> 0 THEN paused_at ELSE $2 END,
		paused = 1 WHERE id = $3`, by, ts(now), id)
	return matched(r, err, "pause source %d", id)
}

// ResumeSource implements web.OwnersData. The site-level opt-out, if any, stays
// (see web.OwnersData). A removed source matches and stays paused (see
// ResumeSite).
func (s *SiteData) ResumeSource(ctx context.Context, id int64) error {
	r, err := s.db.w.ExecContext(ctx, `UPDATE sources SET
		paused_by = CASE WHEN removed <> 0 THEN paused_by ELSE '' END,
		paused_at = CASE WHEN removed <> 0 THEN paused_at ELSE 0 END,
		paused = CASE WHEN removed <> 0 THEN paused ELSE 0 END WHERE id = $1`, id)
	return matched(r, err, "resume source %d", id)
}

// matched turns an UPDATE of one row by key into nil, its error, or
// model.ErrNotFound when no row matched. Both databases count the rows
// matched, changed or not.
func matched(r interface{ RowsAffected() (int64, error) }, err error, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, model.ErrNotFound)
	}
	return nil
}
