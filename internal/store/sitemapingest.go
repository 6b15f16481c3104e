package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// SitemapChunk is how many entries of a sitemap read one write stores. A
// read of at most this many is one write, shared with others in the group
// commit as any small write is; a longer one is stored SitemapChunk entries
// at a time, each chunk in a transaction of its own (DB.txAlone), as the
// entries arrive: neither a transaction nor the memory holding entries
// grows with the sitemap (two 50 MB sitemaps in one group commit once
// froze the writer for minutes). Its removals are withdrawn as many at a
// time, last. A chunk of 1,000 URLs of 1.3 KB took about 65 ms on the
// project's VM; another write waits for the chunks queued before it (at
// most 186–266 ms with two such reads at once, BenchmarkTwoBigSitemaps; chunks
// of 500 cut that to 177–188 ms, and the reads took 7.1–7.8 s, not
// 4.9–6.6).
const SitemapChunk = 1000

// SitemapIngest is one read of a urlset, stored as its entries arrive:
// Add them in the order read, then Finish. (DB.IngestSitemap does both for
// entries held already.)
//
// The rows a read writes in sitemap_urls carry its number (seen); Finish,
// for a whole read, withdraws the rows of older numbers, the URLs the
// sitemap no longer lists. Until then nothing is marked removed: a read
// that fails, is cancelled or dies partway keeps the posts it added and the
// lastmods it recorded (they are facts of the sitemap; the next read finds
// them known) and marks nothing removed, and its caller leaves the sitemap
// as it was, due again. The next read takes a new number, so the rows this
// one stamped are not taken for that read's.
type SitemapIngest struct {
	db   *DB
	sm   Sitemap
	now  time.Time
	held []SitemapURL // not stored yet: at most SitemapChunk
	gen  int64        // this read's number; 0 until a chunk is stored
	diff Diff
	done bool
}

// errIngestDone answers an Add or Finish after Finish.
var errIngestDone = errors.New("sitemap read already finished")

// SitemapIngest starts storing a read of sm's urlset made at now (the
// FirstSeen of the posts it adds). Nothing is written until entries are
// added: a read abandoned before any chunk is stored leaves no trace.
func (d *DB) SitemapIngest(sm Sitemap, now time.Time) *SitemapIngest {
	return &SitemapIngest{db: d, sm: sm, now: now}
}

// IngestSitemap stores one whole or partial read of a urlset whose entries
// are held already, as a SitemapIngest stores them: new URLs become
// pending posts, advanced lastmods make a re-fetch due, and (when whole)
// URLs the sitemap no longer lists are marked removed. A read of at most
// SitemapChunk entries is one write; now is the read's time, the FirstSeen
// of the posts it adds.
func (d *DB) IngestSitemap(ctx context.Context, sm Sitemap, now time.Time, urls []SitemapURL, whole bool) (Diff, error) {
	in := d.SitemapIngest(sm, now)
	if err := in.Add(ctx, urls...); err != nil {
		return in.diff, err
	}
	return in.Finish(ctx, whole)
}

// Add takes the read's next entries. They are held until a chunk's worth
// is (SitemapChunk) and more come, then that chunk is stored in a
// transaction of its own; an error, ctx's end included, stops the read
// there (what earlier chunks stored stays, see SitemapIngest).
func (in *SitemapIngest) Add(ctx context.Context, urls ...SitemapURL) error {
	if in.done {
		return errIngestDone
	}
	for len(urls) > 0 {
		if len(in.held) == SitemapChunk {
			if err := in.flush(ctx); err != nil {
				return err
			}
		}
		if in.held == nil {
			in.held = make([]SitemapURL, 0, min(len(urls), SitemapChunk))
		}
		k := min(len(urls), SitemapChunk-len(in.held))
		in.held = append(in.held, urls[:k]...)
		urls = urls[k:]
	}
	return nil
}

// Stored is what the chunks stored so far found (no removals: those come
// with Finish).
func (in *SitemapIngest) Stored() Diff { return in.diff }

// flush stores the entries held, in a transaction of their own.
func (in *SitemapIngest) flush(ctx context.Context) error {
	var gen int64
	var d Diff
	err := in.db.txAlone(ctx, func(tx conn) error {
		var err error
		if gen, err = in.number(ctx, tx); err != nil {
			return err
		}
		d, err = storeSitemapURLs(ctx, tx, in.sm, in.now, gen, in.held)
		return err
	})
	if err != nil {
		return fmt.Errorf("sitemap %s: %w", in.sm.URL, err)
	}
	in.gen = gen
	in.diff.add(d)
	clear(in.held) // the URLs are not kept alive by the array reused
	in.held = in.held[:0]
	return nil
}

// number is this read's number: the sitemap's last read's plus one, the
// first time.
func (in *SitemapIngest) number(ctx context.Context, tx conn) (int64, error) {
	if in.gen != 0 {
		return in.gen, nil
	}
	var gen int64
	err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seen), 0) + 1 FROM sitemap_urls WHERE sitemap_id = $1`, in.sm.ID).Scan(&gen)
	return gen, err
}

// Finish stores the entries still held and, when the read was whole (not
// cut short), withdraws the URLs it did not list: their posts are marked
// removed unless another sitemap still lists them. It returns what the
// whole read changed. A read of at most SitemapChunk entries is one write
// in all (unless it withdraws more than SitemapChunk URLs). The caller
// records the read on its sitemap (last read, validators) only after
// Finish succeeds.
func (in *SitemapIngest) Finish(ctx context.Context, whole bool) (Diff, error) {
	if in.done {
		return in.diff, errIngestDone
	}
	more := false
	if in.gen == 0 {
		// Never more than a chunk: one write, shared with others.
		var gen int64
		var d Diff
		err := in.db.tx(ctx, func(tx conn) error {
			var err error
			if gen, err = in.number(ctx, tx); err != nil {
				return err
			}
			if d, err = storeSitemapURLs(ctx, tx, in.sm, in.now, gen, in.held); err != nil {
				return err
			}
			if whole {
				d.Removed, more, err = removeUnseen(ctx, tx, in.sm.ID, gen, SitemapChunk)
			}
			return err
		})
		if err != nil {
			return in.diff, fmt.Errorf("sitemap %s: %w", in.sm.URL, err)
		}
		in.gen, in.held = gen, nil
		in.diff.add(d)
	} else {
		if len(in.held) > 0 {
			if err := in.flush(ctx); err != nil {
				return in.diff, err
			}
		}
		more = whole
	}
	for more {
		var n int
		err := in.db.txAlone(ctx, func(tx conn) error {
			var err error
			n, more, err = removeUnseen(ctx, tx, in.sm.ID, in.gen, SitemapChunk)
			return err
		})
		if err != nil {
			return in.diff, fmt.Errorf("sitemap %s: %w", in.sm.URL, err)
		}
		in.diff.Removed += n
	}
	in.done, in.held = true, nil
	return in.diff, nil
}

func (d *Diff) add(o Diff) {
	d.New += o.New
	d.Modified += o.Modified
	d.Removed += o.Removed
	d.Returned += o.Returned
}

// storeSitemapURLs stores entries of read gen of sm in tx, with prepared
// statements: new URLs become pending posts first seen at now, an advanced
// lastmod makes a post due again, a removed post listed again comes back,
// and each URL's row in sitemap_urls is stamped with gen. It stops at ctx's
// end (the statements themselves are not cut off, see DB.txAlone).
func storeSitemapURLs(ctx context.Context, tx conn, sm Sitemap, now time.Time, gen int64, urls []SitemapURL) (Diff, error) {
	var diff Diff
	ins, err := tx.PrepareContext(ctx, `INSERT INTO posts(url, source_id, lastmod, state, due, first_seen) VALUES ($1, $2, $3, `+sqlPostPending+`, 1, $4)
		ON CONFLICT(url) DO NOTHING RETURNING id`)
	if err != nil {
		return diff, err
	}
	defer ins.Close()
	get, err := tx.PrepareContext(ctx, `SELECT id, lastmod, state FROM posts WHERE url = $1`)
	if err != nil {
		return diff, err
	}
	defer get.Close()
	mod, err := tx.PrepareContext(ctx, `UPDATE posts SET lastmod = $1, due = CASE WHEN state IN (`+sqlPostDisallowed+`) THEN due ELSE 1 END WHERE id = $2`)
	if err != nil {
		return diff, err
	}
	defer mod.Close()
	setLM, err := tx.PrepareContext(ctx, `UPDATE posts SET lastmod = $1 WHERE id = $2`)
	if err != nil {
		return diff, err
	}
	defer setLM.Close()
	back, err := tx.PrepareContext(ctx, `UPDATE posts SET state = CASE WHEN prev_state <> '' THEN prev_state ELSE `+sqlPostPending+` END,
		prev_state = '', due = CASE WHEN prev_state IN ('', `+sqlPostPending+`) THEN 1 ELSE due END WHERE id = $1`)
	if err != nil {
		return diff, err
	}
	defer back.Close()
	seen, err := tx.PrepareContext(ctx, `INSERT INTO sitemap_urls(sitemap_id, post_id, lastmod, seen) VALUES ($1, $2, $3, $4)
		ON CONFLICT(sitemap_id, post_id) DO UPDATE SET lastmod = excluded.lastmod, seen = excluded.seen`)
	if err != nil {
		return diff, err
	}
	defer seen.Close()
	sp := newSpellings()
	for _, u := range urls {
		if err := ctx.Err(); err != nil {
			return diff, err
		}
		if u.Loc, err = postKey(ctx, tx, sp, u.Loc); err != nil {
			return diff, fmt.Errorf("sitemap url %s: %w", u.Loc, err)
		}
		// Looked up before it is inserted: on a first pass most of a
		// sitemap's URLs are known already, from the feed and its
		// catalogue, which a site reads first, and a failed insert costs
		// as much as the look-up.
		var id, lm int64
		var state string
		known, err := knownPost(ctx, get, u.Loc, &id, &lm, &state)
		if err != nil {
			return diff, fmt.Errorf("sitemap url %s: %w", u.Loc, err)
		}
		if !known {
			err := ins.QueryRowContext(ctx, u.Loc, sm.SourceID, ts(u.Lastmod), ts(now)).Scan(&id)
			switch {
			case err == nil:
				diff.New++
			case !errors.Is(err, sql.ErrNoRows):
				return diff, fmt.Errorf("sitemap url %s: %w", u.Loc, err)
			default:
				// Another writer (PostgreSQL) added it since the look-up.
				if known, err = knownPost(ctx, get, u.Loc, &id, &lm, &state); err != nil {
					return diff, fmt.Errorf("sitemap url %s: %w", u.Loc, err)
				}
				if !known {
					return diff, fmt.Errorf("sitemap url %s: neither added nor found", u.Loc)
				}
			}
		}
		if known {
			newLM := ts(u.Lastmod)
			switch {
			case state == model.PostRemoved:
				diff.Returned++
				if _, err := back.ExecContext(ctx, id); err != nil {
					return diff, err
				}
				if newLM > lm {
					if _, err := setLM.ExecContext(ctx, newLM, id); err != nil {
						return diff, err
					}
				}
			case lm != 0 && newLM > lm:
				diff.Modified++
				if _, err := mod.ExecContext(ctx, newLM, id); err != nil {
					return diff, err
				}
			case lm == 0 && newLM != 0:
				if _, err := setLM.ExecContext(ctx, newLM, id); err != nil {
					return diff, err
				}
			}
		}
		if _, err := seen.ExecContext(ctx, sm.ID, id, ts(u.Lastmod), gen); err != nil {
			return diff, err
		}
	}
	return diff, nil
}

// knownPost looks url up with get (SELECT id, lastmod, state FROM posts
// WHERE url = $1): false, and no error, if no post has it.
func knownPost(ctx context.Context, get stmt, url string, id, lastmod *int64, state *string) (bool, error) {
	err := get.QueryRowContext(ctx, url).Scan(id, lastmod, state)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	}
	return false, err
}

// removeUnseen withdraws up to limit of the URLs read gen of a sitemap no
// longer lists: their rows are dropped, and their posts marked removed
// unless another sitemap still lists them (the record, its text and its
// citations stay; prev_state remembers what to restore). more reports that
// limit were found, so that others may remain.
func removeUnseen(ctx context.Context, tx conn, sitemapID, gen int64, limit int) (removed int, more bool, err error) {
	var gone []int64
	rows, err := tx.QueryContext(ctx, `SELECT post_id FROM sitemap_urls WHERE sitemap_id = $1 AND seen <> $2 LIMIT $3`, sitemapID, gen, limit)
	if err != nil {
		return 0, false, err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, false, err
		}
		gone = append(gone, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, err
	}
	for _, id := range gone {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sitemap_urls WHERE sitemap_id = $1 AND post_id = $2`, sitemapID, id); err != nil {
			return 0, false, err
		}
		r, err := tx.ExecContext(ctx, `UPDATE posts SET prev_state = state, state = `+sqlPostRemoved+`, due = 0
			WHERE id = $1 AND state <> `+sqlPostRemoved+` AND NOT EXISTS (SELECT 1 FROM sitemap_urls WHERE post_id = $2)`, id, id)
		if err != nil {
			return 0, false, err
		}
		if k, _ := r.RowsAffected(); k == 1 {
			removed++
		}
	}
	return removed, len(gone) == limit, nil
}
