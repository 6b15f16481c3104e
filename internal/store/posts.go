package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/textsig"
	"corpus.blog/corpusbot/internal/urlkey"
)

const postCols = `id, url, source_id, title, published, lastmod, state, text_from, text, etag, last_modified, citations, due, fetched, attempts, retry_at, error, first_seen,
	author, language, description, site_name, tags, license, image, duplicate_of, updated`

func scanPost(sc interface{ Scan(...any) error }) (Post, error) {
	var p Post
	var pub, lm, fetched, retry, seen, updated int64
	var cites, tags string
	err := sc.Scan(&p.ID, &p.URL, &p.SourceID, &p.Title, &pub, &lm, &p.State, &p.TextFrom, &p.Text, &p.ETag, &p.LastModified, &cites, &p.Due, &fetched,
		&p.Attempts, &retry, &p.Error, &seen,
		&p.Author, &p.Language, &p.Description, &p.SiteName, &tags, &p.License, &p.Image, &p.DuplicateOf, &updated)
	if err != nil {
		return p, err
	}
	p.Published, p.Lastmod, p.Fetched, p.RetryAt, p.FirstSeen, p.Updated = tm(pub), tm(lm), tm(fetched), tm(retry), tm(seen), tm(updated)
	if err := json.Unmarshal([]byte(cites), &p.Citations); err != nil {
		return p, fmt.Errorf("post %s citations: %w", p.URL, err)
	}
	if err := json.Unmarshal([]byte(tags), &p.Tags); err != nil {
		return p, fmt.Errorf("post %s tags: %w", p.URL, err)
	}
	return p, nil
}

// AddPosts inserts the posts whose URL is new (first seen at their Seen),
// in one transaction; a known URL inserts nothing, but an advanced Lastmod
// makes it due.
func (d *DB) AddPosts(ctx context.Context, posts []NewPost) (AddResult, error) {
	var res AddResult
	err := d.tx(ctx, func(tx conn) error {
		var err error
		res, err = addPosts(ctx, tx, posts)
		return err
	})
	return res, err
}

// FeedRead stores what one read of a feed page found and the feed's new
// standing in one transaction, so that a crash never records the posts
// without the progress or the progress without the posts: update gets
// what AddPosts would return and returns the feed to store.
func (d *DB) FeedRead(ctx context.Context, posts []NewPost, update func(AddResult) Feed) (AddResult, error) {
	var res AddResult
	err := d.tx(ctx, func(tx conn) error {
		var err error
		if res, err = addPosts(ctx, tx, posts); err != nil {
			return err
		}
		return d.updateFeed(ctx, tx, update(res))
	})
	return res, err
}

func addPosts(ctx context.Context, tx conn, posts []NewPost) (AddResult, error) {
	var res AddResult
	sp := newSpellings()
	{
		for i, p := range posts {
			key, err := postKey(ctx, tx, sp, p.URL)
			if err != nil {
				return res, fmt.Errorf("add post %s: %w", p.URL, err)
			}
			p.URL = key
			state, due, from := model.PostPending, true, ""
			if p.Text != "" {
				state, due, from = model.PostIndexed, false, model.TextFromFeed
			}
			var meta Meta // a feed's word on a post comes with its full text
			if p.Text != "" {
				meta = p.Meta
			}
			tags, err := metaTags(meta)
			if err != nil {
				return res, err
			}
			// RETURNING gives the new row's ID, and no row for a known URL.
			var id int64
			err = tx.QueryRowContext(ctx, `INSERT INTO posts(url, source_id, title, published, lastmod, state, text_from, text, due, in_feed, first_seen,
				author, language, description, site_name, tags, license, image)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT(url) DO NOTHING RETURNING id`,
				p.URL, p.SourceID, noNUL(p.Title), ts(p.Published), ts(p.Lastmod), state, from, noNUL(p.Text), b2i(due), ts(p.Seen),
				noNUL(meta.Author), noNUL(meta.Language), noNUL(meta.Description), noNUL(meta.SiteName), tags, noNUL(meta.License), noNUL(meta.Image)).Scan(&id)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return res, fmt.Errorf("add post %s: %w", p.URL, err)
			}
			if err == nil {
				res.Added++
				res.New = append(res.New, i)
				if p.Text != "" {
					// New: no fingerprint yet, no original; first seen
					// is the one just written.
					sig := textsig.Of(noNUL(p.Text))
					if err := fingerprintSig(ctx, tx, id, sig, ts(p.Seen), storedSig{}); err != nil {
						return res, fmt.Errorf("add post %s: %w", p.URL, err)
					}
				}
				continue
			}
			// Known: only a lastmod that advanced changes anything (none
			// given advances nothing: the UPDATE's condition would be
			// lastmod < 0).
			text := noNUL(p.Text)
			if p.Lastmod.IsZero() {
				if _, err := tx.ExecContext(ctx, `UPDATE posts SET in_feed = 1 WHERE url = $1 AND in_feed = 0`, p.URL); err != nil {
					return res, err
				}
				continue
			}
			r, err := tx.ExecContext(ctx, `UPDATE posts SET lastmod = $1, in_feed = 1,
				due = CASE WHEN $2 = '' AND state NOT IN (`+sqlPostDisallowed+`, `+sqlPostRemoved+`) THEN 1 ELSE due END,
				text = CASE WHEN $3 <> '' AND text_from <> `+sqlTextFromPage+` THEN $4 ELSE text END
				WHERE url = $5 AND lastmod <> 0 AND lastmod < $6`,
				ts(p.Lastmod), text, text, text, p.URL, ts(p.Lastmod))
			if err != nil {
				return res, fmt.Errorf("update post %s: %w", p.URL, err)
			}
			if n, _ := r.RowsAffected(); n == 1 {
				res.Modified++
				if text != "" {
					// The feed's new text, if the page has not given one.
					if err := fingerprintURL(ctx, tx, p.URL); err != nil {
						return res, fmt.Errorf("update post %s: %w", p.URL, err)
					}
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE posts SET in_feed = 1, lastmod = CASE WHEN lastmod = 0 THEN $1 ELSE lastmod END
				WHERE url = $2 AND (in_feed = 0 OR lastmod = 0)`, ts(p.Lastmod), p.URL); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// Post finds a post by any URL that names it (its key, a variant its site
// has shown to be the same, an alias).
func (d *DB) Post(ctx context.Context, u string) (Post, error) {
	key, err := postKey(ctx, d.r, newSpellings(), u)
	if err != nil {
		return Post{}, fmt.Errorf("post %s: %w", u, err)
	}
	p, err := scanPost(d.r.QueryRowContext(ctx, `SELECT `+postCols+` FROM posts WHERE url = $1`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("post %s: %w", u, model.ErrNotFound)
	}
	return p, err
}

// PostDue is the ID of the post any URL names (as Post finds it) and
// whether its page is owed (Due): what a crawler checks before each fetch
// of a batch read earlier, without the record's text and citations.
func (d *DB) PostDue(ctx context.Context, u string) (id int64, due bool, err error) {
	key, err := postKey(ctx, d.r, newSpellings(), u)
	if err != nil {
		return 0, false, fmt.Errorf("post %s: %w", u, err)
	}
	err = d.r.QueryRowContext(ctx, `SELECT id, due FROM posts WHERE url = $1`, key).Scan(&id, &due)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, fmt.Errorf("post %s: %w", u, model.ErrNotFound)
	}
	if err != nil {
		return 0, false, fmt.Errorf("post %s: %w", u, err)
	}
	return id, due, nil
}

// PostsDue lists posts owed a page fetch (pageDue), oldest first: of one
// source, or of any when sourceID is 0.
func (d *DB) PostsDue(ctx context.Context, sourceID int64, now time.Time, limit int) ([]Post, error) {
	q, args := `SELECT `+postCols+` FROM posts p WHERE `+pageDue("p", "$1")+` AND `+itemLive("p"), []any{ts(now), limit}
	if sourceID != 0 {
		q, args = q+` AND p.source_id = $3`, append(args, sourceID)
	}
	out, err := d.posts(ctx, q+` ORDER BY p.id LIMIT $2`, args...)
	if err != nil {
		return nil, fmt.Errorf("posts due: %w", err)
	}
	return out, nil
}

// SavePage stores the outcome of one page fetch and its citations, clearing
// Due in the same transaction, so a post is fetched again only if the
// process died between the response and this commit.
func (d *DB) SavePage(ctx context.Context, r PageResult) error {
	if !r.Retry.At.IsZero() {
		_, err := d.w.ExecContext(ctx, `UPDATE posts SET attempts = $1, retry_at = $2, error = $3 WHERE id = $4`,
			r.Retry.Attempts, ts(r.Retry.At), noNUL(r.Retry.Error), r.PostID)
		return err
	}
	if r.Keep {
		_, err := d.w.ExecContext(ctx, `UPDATE posts SET due = 0, fetched = $1, attempts = 0, retry_at = 0, error = $3 WHERE id = $2`, ts(r.Fetched), r.PostID, noNUL(r.Error))
		return err
	}
	cites, err := json.Marshal(nonNil(r.Citations))
	if err != nil {
		return err
	}
	removed := r.State == model.PostRemoved
	meta := r.Meta
	if r.State != model.PostIndexed && !removed {
		meta = Meta{} // no text, nothing said of it
	}
	tags, err := metaTags(meta)
	if err != nil {
		return err
	}
	// What needs no database is done here, before the one writer takes
	// the write: the text's fingerprint (a tenth of a millisecond for a
	// long page) and the citations' sites.
	text := noNUL(r.Text)
	var sig textsig.Sig
	if !removed && r.State == model.PostIndexed {
		sig = textsig.Of(text)
	}
	links := linkRows(r.Citations)
	// One statement writes the page's outcome and, unless the post is
	// removed (it keeps what was said of it with its text), what the page
	// says of it now, and reads back what the rest of the save needs and
	// the caller does not have: the post's URL, first seen, current
	// original and site, and whether it has links and bands to replace
	// (a post's first save has none: two DELETEs fewer).
	q := `UPDATE posts SET state = $1, title = CASE WHEN title = '' THEN $2 ELSE title END,
		published = CASE WHEN published = 0 THEN $3 ELSE published END,
		text = $4, text_from = $5, etag = $6, last_modified = $7, citations = $8, due = 0, fetched = $9,
		attempts = 0, retry_at = 0, error = $11, canonical = CASE WHEN $12 = '' THEN canonical ELSE $12 END`
	args := []any{r.State, noNUL(r.Title), ts(r.Published), text, r.TextFrom, r.ETag, r.LastModified, string(cites), ts(r.Fetched), r.PostID,
		noNUL(r.Error), noNUL(r.Elsewhere)}
	if !removed {
		q += `, markdown = $13, author = $14, language = $15, description = $16, site_name = $17, tags = $18,
			license = $19, image = $20, lastmod = CASE WHEN lastmod = 0 THEN $21 ELSE lastmod END`
		args = append(args, noNUL(r.Markdown), noNUL(meta.Author), noNUL(meta.Language), noNUL(meta.Description), noNUL(meta.SiteName), tags,
			noNUL(meta.License), noNUL(meta.Image), ts(r.Modified))
	}
	q += ` WHERE id = $10 RETURNING url, first_seen, duplicate_of, COALESCE((SELECT site FROM sources WHERE id = posts.source_id), ''),
		EXISTS (SELECT 1 FROM links WHERE post_id = posts.id), EXISTS (SELECT 1 FROM post_bands WHERE post_id = posts.id)`
	err = d.tx(ctx, func(tx conn) error {
		var at, site string
		var seen, original int64
		var hasLinks, hasBands bool
		err := tx.QueryRowContext(ctx, q, args...).Scan(&at, &seen, &original, &site, &hasLinks, &hasBands)
		if errors.Is(err, sql.ErrNoRows) {
			if removed && len(links) == 0 {
				return nil // nothing more would have been written
			}
			return model.ErrNotFound
		}
		if err != nil {
			return err
		}
		if !removed {
			if err := fingerprintSig(ctx, tx, r.PostID, sig, seen, storedSig{original: original, bands: hasBands}); err != nil {
				return err
			}
		}
		if hasLinks {
			if _, err := tx.ExecContext(ctx, `DELETE FROM links WHERE post_id = $1`, r.PostID); err != nil {
				return err
			}
		}
		if err := insertLinks(ctx, tx, r.PostID, site, links); err != nil {
			return err
		}
		if r.Canonical == "" {
			return nil
		}
		to, err := urlkey.Key(r.Canonical)
		if err != nil {
			return nil // not an http(s) URL: nothing to record it under
		}
		return movePost(ctx, tx, r.PostID, at, to)
	})
	if err != nil {
		return fmt.Errorf("save page %d: %w", r.PostID, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// EachPost calls fn with every post, by ID, a page at a time (eachPage):
// a post added meanwhile after the last page read is included.
func (d *DB) EachPost(ctx context.Context, fn func(Post) error) error {
	return eachPage(ctx, d, `SELECT `+postCols+` FROM posts WHERE id > $1 ORDER BY id LIMIT $2`, scanPost, func(p Post) int64 { return p.ID }, fn)
}

func (d *DB) posts(ctx context.Context, q string, args ...any) ([]Post, error) {
	return collect(ctx, d, d.r, q, args, scanPost)
}
