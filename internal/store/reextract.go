package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"corpus.blog/corpusbot/internal/model"
)

// ReextractPage stores what today's extractor makes of a page kept
// (reextract): the state the page gives (indexed, noindex, shell), its
// text, title, citations and what it says of the post (Meta), and the
// post's fingerprint and duplicates, as SavePage does for a page fetched.
// It leaves alone everything that belongs to the fetch rather than to the
// page: due, fetched, the validators, the retry state and the error, so
// that the crawl's schedule is what it was; and the post's identity (a
// canonical link moving the record is the crawl's decision, taken when the
// page was fetched). r's PostID, State, Title, Published, Text, TextFrom,
// Markdown, Citations, Elsewhere, Meta and Modified are read.
//
// It reports whether the post's record changed (what export gives of it).
func (d *DB) ReextractPage(ctx context.Context, r PageResult) (changed bool, err error) {
	switch r.State {
	case model.PostIndexed, model.PostNoindex, model.PostShell:
	default:
		return false, fmt.Errorf("reextract page %d: state %q is not one a page gives", r.PostID, r.State)
	}
	cites, err := json.Marshal(nonNil(r.Citations))
	if err != nil {
		return false, err
	}
	meta := r.Meta
	if r.State != model.PostIndexed {
		meta = Meta{}
	}
	tags, err := metaTags(meta)
	if err != nil {
		return false, err
	}
	err = d.tx(ctx, func(tx conn) error {
		before, err := scanPost(tx.QueryRowContext(ctx, `SELECT `+postCols+` FROM posts WHERE id = $1`, r.PostID))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET state = $1, title = CASE WHEN title = '' THEN $2 ELSE title END,
			published = CASE WHEN published = 0 THEN $3 ELSE published END,
			text = $4, text_from = $5, citations = $6, markdown = $16,
			author = $7, language = $8, description = $9, site_name = $10, tags = $11, license = $12, image = $13,
			lastmod = CASE WHEN lastmod = 0 THEN $14 ELSE lastmod END WHERE id = $15`,
			r.State, noNUL(r.Title), ts(r.Published), noNUL(r.Text), r.TextFrom, string(cites),
			noNUL(meta.Author), noNUL(meta.Language), noNUL(meta.Description), noNUL(meta.SiteName), tags,
			noNUL(meta.License), noNUL(meta.Image), ts(r.Modified), r.PostID, noNUL(r.Markdown)); err != nil {
			return err
		}
		if err := fingerprint(ctx, tx, r.PostID); err != nil {
			return err
		}
		if err := putLinks(ctx, tx, r.PostID, r.Citations); err != nil {
			return err
		}
		if r.Elsewhere != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE posts SET canonical = $1 WHERE id = $2`, noNUL(r.Elsewhere), r.PostID); err != nil {
				return err
			}
		}
		after, err := scanPost(tx.QueryRowContext(ctx, `SELECT `+postCols+` FROM posts WHERE id = $1`, r.PostID))
		if err != nil {
			return err
		}
		changed = !sameRecord(before, after)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("reextract page %d: %w", r.PostID, err)
	}
	return changed, nil
}

// sameRecord reports whether a and b, one post read twice, give the same
// record: the fields export gives.
func sameRecord(a, b Post) bool {
	return a.URL == b.URL && a.Title == b.Title && a.Published.Equal(b.Published) && a.Lastmod.Equal(b.Lastmod) &&
		a.State == b.State && a.TextFrom == b.TextFrom && a.Text == b.Text && slices.Equal(a.Citations, b.Citations) &&
		a.Author == b.Author && a.Language == b.Language && a.Description == b.Description && a.SiteName == b.SiteName &&
		slices.Equal(a.Tags, b.Tags) && a.License == b.License && a.Image == b.Image && a.DuplicateOf == b.DuplicateOf
}
