package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/urlkey"
)

// OptedOut reports whether the owner of site (a registrable domain, as
// model.Site has it) opted the whole site out: nothing may be fetched from
// it (fetch.Options.OptedOut). The sources of such a site are paused, and
// their work is in no batch.
func (d *DB) OptedOut(ctx context.Context, site string) (bool, error) {
	var one int
	err := d.lookup.QueryRowContext(ctx, `SELECT 1 FROM opted_out WHERE site = $1`, site).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("opt-out of %s: %w", site, err)
	}
	return true, nil
}

// putLinks replaces a post's citations as rows: one per cited URL on
// another site than the post's own, for the public site's "cited by".
func putLinks(ctx context.Context, tx conn, postID int64, citations []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM links WHERE post_id = $1`, postID); err != nil {
		return err
	}
	links := linkRows(citations)
	if len(links) == 0 {
		return nil
	}
	var from string
	err := tx.QueryRowContext(ctx, `SELECT s.site FROM posts p JOIN sources s ON s.id = p.source_id WHERE p.id = $1`, postID).Scan(&from)
	if err != nil {
		return fmt.Errorf("site of post %d: %w", postID, err)
	}
	return insertLinks(ctx, tx, postID, from, links)
}

// linkRow is a cited URL and its site.
type linkRow struct{ site, url string }

// linkRows are the citations that can be links: once each, on a site.
func linkRows(citations []string) []linkRow {
	out := make([]linkRow, 0, len(citations))
	var seen map[string]bool // for a long list; a short one is searched
	if len(citations) > 32 {
		seen = make(map[string]bool, len(citations))
	}
	for i, c := range citations {
		if seen != nil && seen[c] || seen == nil && slices.Contains(citations[:i], c) {
			continue
		}
		if seen != nil {
			seen[c] = true
		}
		if to := model.SiteOfURL(c); to != "" {
			out = append(out, linkRow{to, noNUL(c)})
		}
	}
	return out
}

// maxLinkRows bounds the rows of one INSERT of links (two arguments a row:
// far under either backend's limit on a statement's arguments), and so the
// statement texts prepared, one per row count.
const maxLinkRows = 100

// insertLinks adds the links of post postID, on site from, to the links
// that are not to from itself: as few statements as there are rows over
// maxLinkRows, rather than one a row.
func insertLinks(ctx context.Context, tx conn, postID int64, from string, links []linkRow) error {
	args := make([]any, 0, 2+2*min(len(links), maxLinkRows))
	var q strings.Builder
	flush := func() error {
		if len(args) == 2 {
			return nil
		}
		_, err := tx.ExecContext(ctx, q.String(), args...)
		return err
	}
	for _, l := range links {
		if l.site == from {
			continue
		}
		if len(args) == 0 || len(args) == 2+2*maxLinkRows {
			if err := flush(); err != nil {
				return err
			}
			args = append(args[:0], postID, from)
			q.Reset()
			q.WriteString(`INSERT INTO links(post_id, from_site, to_site, url) VALUES `)
		} else {
			q.WriteString(", ")
		}
		args = append(args, l.site, l.url)
		fmt.Fprintf(&q, "($1, $2, $%d, $%d)", len(args)-1, len(args))
	}
	if len(args) == 0 {
		return nil
	}
	return flush()
}

// Backfill fills in what a migration added but SQL alone cannot compute:
// the site of sources stored before sites were kept, the links of posts
// saved before links were kept, and source URLs stored with a user name or
// password (ScrubCredentials), and the identity of sources stored before
// sources were keyed by it (identifySources). Each part runs once; Open
// calls it.
func (d *DB) Backfill(ctx context.Context) error {
	err := d.tx(ctx, func(tx conn) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, url FROM sources WHERE site = ''`)
		if err != nil {
			return fmt.Errorf("backfill sites: %w", err)
		}
		type src struct {
			id  int64
			url string
		}
		var todo []src
		for rows.Next() {
			var s src
			if err := rows.Scan(&s.id, &s.url); err != nil {
				rows.Close()
				return err
			}
			todo = append(todo, s)
		}
		rows.Close()
		for _, s := range todo {
			if site := model.SiteOfURL(s.url); site != "" {
				if _, err := tx.ExecContext(ctx, `UPDATE sources SET site = $1 WHERE id = $2`, site, s.id); err != nil {
					return fmt.Errorf("backfill site of %s: %w", s.url, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Feeds read before the schedule kept next_due are due a day after
	// their last read, as the fixed rotation had them.
	if _, err := d.w.ExecContext(ctx, `UPDATE feeds SET next_due = last_read + 86400000000000
		WHERE next_due = 0 AND last_read <> 0 AND history = ''`); err != nil {
		return fmt.Errorf("backfill next_due: %w", err)
	}
	if err := d.keyPosts(ctx); err != nil {
		return err
	}
	err = d.tx(ctx, func(tx conn) error {
		// Whoever inserts the marker does the backfill, in the same
		// transaction: workers opening together do it once.
		res, err := tx.ExecContext(ctx, `INSERT INTO store_meta(name, value) VALUES ('links', 'done') ON CONFLICT(name) DO NOTHING`)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, citations FROM posts WHERE citations <> '[]'`)
		if err != nil {
			return err
		}
		cites := map[int64][]string{}
		for rows.Next() {
			var id int64
			var raw string
			if err := rows.Scan(&id, &raw); err != nil {
				rows.Close()
				return err
			}
			var cs []string
			if json.Unmarshal([]byte(raw), &cs) == nil {
				cites[id] = cs
			}
		}
		rows.Close()
		for id, cs := range cites {
			if err := putLinks(ctx, tx, id, cs); err != nil {
				return fmt.Errorf("backfill links: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := d.scrubCredentialsOnce(ctx); err != nil {
		return err
	}
	// After the scrub: a URL with user information is no source's.
	return d.identifySourcesOnce(ctx)
}

// keyPosts brings the posts stored before post URLs were keyed under their
// keys (package urlkey), once: posts whose URLs have one key are merged
// into the earliest of them (its record kept, the others' sitemap
// listings, aliases and, where only they were fetched, their page moved to
// it), and every other URL becomes an alias of the record that has its
// key.
func (d *DB) keyPosts(ctx context.Context) error {
	return d.tx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO store_meta(name, value) VALUES ('post_keys', 'done') ON CONFLICT(name) DO NOTHING`)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		type post struct {
			id  int64
			url string
		}
		var all []post
		err = d.each(ctx, tx, `SELECT id, url FROM posts ORDER BY id`, nil, func(rows *sql.Rows) error {
			var p post
			err := rows.Scan(&p.id, &p.url)
			all = append(all, p)
			return err
		})
		if err != nil {
			return fmt.Errorf("key posts: %w", err)
		}
		first := map[string]int64{} // key -> the earliest post with it
		for _, p := range all {
			key, err := urlkey.Key(p.url)
			if err != nil {
				continue // not an http(s) URL: left as it was
			}
			if into, ok := first[key]; ok {
				if err := mergePost(ctx, tx, p.id, into); err != nil {
					return err
				}
				continue
			}
			first[key] = p.id
		}
		// Then the survivors take their keys (after the merges, so that no
		// key is taken by a post about to be merged away).
		for _, p := range all {
			key, err := urlkey.Key(p.url)
			if err != nil || key == p.url || first[key] != p.id {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE posts SET url = $1 WHERE id = $2`, key, p.id); err != nil {
				return fmt.Errorf("key post %s: %w", p.url, err)
			}
			if err := addAlias(ctx, tx, aliasPost, p.url, p.id); err != nil {
				return err
			}
		}
		return nil
	})
}
