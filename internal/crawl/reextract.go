package crawl

import (
	"context"
	"errors"
	"fmt"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// ErrNotExtracted says a page kept could not be made into a record (a URL
// or a body the extractor refuses): the post is left as it is.
var ErrNotExtracted = errors.New("page not extracted")

// ReextractPage stores what today's extractor makes of the post p's page
// as it was fetched and kept (res, read back from the archive), through the
// very function that makes a fetched page into a record (pageResult), so
// that a rebuilt corpus is the one a crawl would make today. It needs no
// Fetcher and sends nothing: the fetch's own record (due, validators) and
// the post's identity stay as the crawl left them (store.ReextractPage).
// It reports whether the post's record changed.
func (c *Crawler) ReextractPage(ctx context.Context, p store.Post, res fetch.Result) (bool, error) {
	r := store.PageResult{PostID: p.ID}
	c.pageResult(&r, res, p.URL)
	if r.State == model.PostError {
		return false, fmt.Errorf("%s: %w", p.URL, ErrNotExtracted)
	}
	r.Canonical = ""
	changed, err := c.Store.ReextractPage(ctx, r)
	if err != nil {
		return false, fmt.Errorf("page %s: %w", p.URL, err)
	}
	return changed, nil
}
