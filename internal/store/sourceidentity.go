package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sourcelist"
)

// Source identity. A source is keyed by sourcelist.Identity of its
// homepage (the column ident, unique): AddSource returns the stored source
// for any spelling of its homepage. Sources stored before the rule were
// keyed by the URL as given, so one blog could be several sources (host
// case, an IDN in Unicode and in punycode, ":443", a fragment, a final
// slash); identifySources merges them once, when a database is opened by a
// binary that has the rule. And a source added by its feed's URL learns its
// homepage from the feed (RehomeSource), which makes it one with the source
// added by that homepage.

// SourceMerge is one source folded into another because both named one
// homepage.
type SourceMerge struct {
	SourceID   int64  // the source merged away
	URL        string // its URL, as it was stored
	MergedInto int64  // the source that has its feeds, sitemaps and posts now
}

// mergeSource folds source from into source into, by the merge
// ScrubCredentials does: from's feeds, sitemaps, posts and WebSub
// subscriptions move to into (a feed or sitemap into already holds under
// the same URL takes the other's in), then mergeSourceRecord.
func (d *DB) mergeSource(ctx context.Context, tx conn, from, into int64) error {
	if from == into {
		return nil
	}
	if _, err := scrubFeeds(ctx, d, tx, from, into); err != nil {
		return err
	}
	if _, err := scrubSitemaps(ctx, d, tx, from, into); err != nil {
		return err
	}
	if _, err := scrubPosts(ctx, d, tx, from, into); err != nil {
		return err
	}
	if err := scrubSubscriptions(ctx, d, tx, from, into); err != nil {
		return err
	}
	return mergeSourceRecord(ctx, tx, from, into)
}

// mergeSourceRecord ends a merge once what source from held has moved to
// into: a pause (by the site's owner, through a claim) is not undone by the
// merge; a discovery or sitemap search from has done counts for into, which
// holds what it found; and from is deleted.
func mergeSourceRecord(ctx context.Context, tx conn, from, into int64) error {
	var paused int
	var pausedBy string
	var pausedAt, discovered, sitemapsChecked int64
	if err := tx.QueryRowContext(ctx, `SELECT paused, paused_by, paused_at, discovered, sitemaps_checked FROM sources WHERE id = $1`, from).
		Scan(&paused, &pausedBy, &pausedAt, &discovered, &sitemapsChecked); err != nil {
		return fmt.Errorf("merge source %d into %d: %w", from, into, err)
	}
	steps := []struct {
		q    string
		args []any
	}{
		{`UPDATE sources SET discovered = $1 WHERE id = $2 AND discovered = 0`, []any{discovered, into}},
		{`UPDATE sources SET sitemaps_checked = $1 WHERE id = $2 AND sitemaps_checked = 0`, []any{sitemapsChecked, into}},
		{`DELETE FROM sources WHERE id = $1`, []any{from}},
	}
	if paused != 0 {
		steps = append(steps, struct {
			q    string
			args []any
		}{`UPDATE sources SET paused = $1, paused_by = $2, paused_at = $3 WHERE id = $4 AND paused = 0`, []any{paused, pausedBy, pausedAt, into}})
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("merge source %d into %d: %w", from, into, err)
		}
	}
	return nil
}

// identifySourcesOnce runs identifySources the first time a database is
// opened by a binary that keys sources by identity, and logs each merge.
func (d *DB) identifySourcesOnce(ctx context.Context) error {
	var merges []SourceMerge
	err := d.tx(ctx, func(tx conn) error {
		merges = nil
		// Whoever inserts the marker does the work, in the same
		// transaction: workers opening together do it once.
		res, err := tx.ExecContext(ctx, `INSERT INTO store_meta(name, value) VALUES ('source_ident', 'done') ON CONFLICT(name) DO NOTHING`)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		merges, err = d.identifySources(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("key sources by identity: %w", err)
	}
	for _, m := range merges {
		d.logger().Warn("source merged into the one with the same homepage (one source per homepage, whatever its spelling)",
			"source_id", m.SourceID, "source", m.URL, "merged_into", m.MergedInto)
	}
	return nil
}

// identifySources gives every source its identity and its URL key
// (sourcelist.SourceURL), merging the sources with one identity into the
// earliest of them (the lowest ID), which keeps its record and URL and
// gains the others' feeds, sitemaps, posts and history (mergeSource). A
// stored URL the rule refuses (none should be: AddSource checked it, and
// ScrubCredentials, which runs first, took out user information) keeps
// its URL, as its own identity.
func (d *DB) identifySources(ctx context.Context, tx conn) ([]SourceMerge, error) {
	type source struct {
		id              int64
		url, key, ident string
	}
	var all []source
	err := d.each(ctx, tx, `SELECT id, url FROM sources ORDER BY id`, nil, func(rows *sql.Rows) error {
		var s source
		err := rows.Scan(&s.id, &s.url)
		all = append(all, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	first := map[string]int64{}
	var merges []SourceMerge
	var keep []source
	for _, s := range all {
		s.key, s.ident = s.url, s.url
		if key, err := sourcelist.SourceURL(s.url); err == nil {
			s.key = key
			s.ident, _ = sourcelist.Identity(key)
		}
		into, seen := first[s.ident]
		if !seen {
			first[s.ident] = s.id
			keep = append(keep, s)
			continue
		}
		if err := d.mergeSource(ctx, tx, s.id, into); err != nil {
			return nil, err
		}
		merges = append(merges, SourceMerge{SourceID: s.id, URL: s.url, MergedInto: into})
	}
	// The survivors take their keys after the merges, so that no key is
	// taken by a source about to be merged away.
	for _, s := range keep {
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET url = $1, ident = $2, site = $3 WHERE id = $4`,
			s.key, s.ident, model.SiteOfURL(s.key), s.id); err != nil {
			return nil, fmt.Errorf("identity of source %d: %w", s.id, err)
		}
	}
	return merges, nil
}

// MergeSource folds source from (added by a feed's URL, say) into source
// into, the same blog: its feeds, sitemaps, posts and subscriptions move,
// and from goes (see mergeSource).
func (d *DB) MergeSource(ctx context.Context, from, into int64) error {
	err := d.tx(ctx, func(tx conn) error { return d.mergeSource(ctx, tx, from, into) })
	if err != nil {
		return err
	}
	d.logger().Info("source merged into the one with the same blog", "source_id", from, "merged_into", into)
	return nil
}

// RehomeSource records that source id, added by its feed's URL, is the
// blog whose homepage is home (sourcelist.FeedHome). It takes home
// as its URL, unless another source already has home's identity: then it
// is merged into that one. It returns the source that stands for the blog
// now.
func (d *DB) RehomeSource(ctx context.Context, id int64, home string) (Source, error) {
	key, err := sourcelist.SourceURL(home)
	if err != nil {
		return Source{}, fmt.Errorf("rehome source %d: %w", id, err)
	}
	ident, _ := sourcelist.Identity(key)
	var out Source
	err = d.tx(ctx, func(tx conn) error {
		var other int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM sources WHERE ident = $1`, ident).Scan(&other)
		switch {
		case errors.Is(err, sql.ErrNoRows) || other == id:
			if _, err := tx.ExecContext(ctx, `UPDATE sources SET url = $1, ident = $2, site = $3 WHERE id = $4`,
				key, ident, model.SiteOfURL(key), id); err != nil {
				return err
			}
			other = id
		case err != nil:
			return err
		default:
			if err := d.mergeSource(ctx, tx, id, other); err != nil {
				return err
			}
		}
		out, err = scanSource(tx.QueryRowContext(ctx, `SELECT `+sourceCols+` FROM sources WHERE id = $1`, other))
		return err
	})
	if err != nil {
		return Source{}, fmt.Errorf("rehome source %d at %s: %w", id, key, err)
	}
	return out, nil
}

// IdentifySources gives every source its identity, merging the sources
// that share one (see identifySources), and reports the merges in the
// order made. Backfill runs it once per database; it is exported for the
// test suite, which stores duplicates as an older binary did.
func (d *DB) IdentifySources(ctx context.Context) ([]SourceMerge, error) {
	var merges []SourceMerge
	err := d.tx(ctx, func(tx conn) error {
		var err error
		merges, err = d.identifySources(ctx, tx)
		return err
	})
	return merges, err
}
