package crawl

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
)

// WalkCatalogue reads the pages behind a feed's page one, once per feed:
// one page at a time (the catalogue purpose makes the fetcher wait
// CATALOGUE_PAGE_DELAY, or a longer Crawl-delay, between them), following
// the feed's declared next page or ?paged=N. It stops when a page adds
// nothing new, when there is no next page, or after CATALOGUE_MAX_PAGES
// pages (page one included). Each page's posts and the walk's progress are
// stored in one transaction, so a walk cut off anywhere resumes at the page
// it had not recorded; a finished walk (done) is never started again.
func (c *Crawler) WalkCatalogue(ctx context.Context, f store.Feed) error {
	if f.Catalogue == model.CatalogueDone {
		return nil
	}
	// What a page answered is stored, stop or not (cutoff.go); the walk
	// then stops before its next page.
	sctx, done := saving(ctx)
	defer done()
	for {
		if f.NextPage == "" || f.Pages+1 >= c.Settings.CatalogueMaxPages {
			f.Catalogue = model.CatalogueDone
			return c.Store.UpdateFeed(sctx, f)
		}
		if ctx.Err() != nil {
			return c.interruptWalk(ctx, sctx, f)
		}
		page := f.NextPage
		res := c.fetch(ctx, fetch.Request{URL: page, Purpose: model.PurposeCatalogue})
		if cutOff(ctx, res) {
			return c.interruptWalk(ctx, sctx, f)
		}
		switch {
		case res.Outcome == model.OutcomeFetched:
		case res.Transient() || (res.Outcome == model.OutcomeDisallowed && res.Robots == robots.StateUnreachable):
			// Not an end of the archive: resume from this page at its retry;
			// once every try has failed, a window later.
			retry, ok := c.retryOf(ctx, res.Site, res, f.Attempts)
			if !ok {
				c.Log.Warn("catalogue page failed after every retry", "feed", f.URL, "page", page, "err", retry.Error)
				retry = store.Retry{At: c.Clock.Now().Add(max(c.Settings.RetryWindow, time.Minute)), Error: retry.Error}
			} else {
				c.Meter.RetryScheduled(retryCatalogue)
			}
			f.Catalogue, f.Error, f.Attempts, f.RetryAt = model.CatalogueInterrupted, retry.Error, retry.Attempts, retry.At
			return c.Store.UpdateFeed(sctx, f)
		default:
			// 404 past the last page, disallowed by a ?paged= rule, not a feed:
			// the walk has reached as far as it may.
			f.Catalogue = model.CatalogueDone
			return c.Store.UpdateFeed(sctx, f)
		}
		parsed, err := feed.Parse(res.Body, res.FinalURL)
		if err != nil {
			f.Catalogue = model.CatalogueDone
			return c.Store.UpdateFeed(sctx, f)
		}
		f.Attempts, f.RetryAt = 0, time.Time{}
		added, err := c.Store.FeedRead(sctx, newPosts(f.SourceID, parsed, c.Clock.Now()), func(r store.AddResult) store.Feed {
			f.Pages++
			switch {
			case r.Added == 0:
				f.Catalogue, f.NextPage = model.CatalogueDone, ""
			case parsed.Next != "":
				f.Catalogue, f.NextPage = model.CataloguePending, parsed.Next
			case page == pagedURL(f.URL, f.Pages+1):
				f.Catalogue, f.NextPage = model.CataloguePending, pagedURL(f.URL, f.Pages+2)
			default:
				f.Catalogue, f.NextPage = model.CatalogueDone, ""
			}
			return f
		})
		if err != nil {
			return fmt.Errorf("catalogue %s: %w", page, err)
		}
		c.progress.Load().posts(added.Added, added.Modified, 0)
		c.Log.Info("catalogue page", "feed", f.URL, "page", page, "new", added.Added)
		if f.Catalogue == model.CatalogueDone {
			return nil
		}
	}
}

// interruptWalk records a walk stopped (ctx ended) before its next page,
// f.NextPage, had an answer: the next run resumes it there. It returns
// ctx's error.
func (c *Crawler) interruptWalk(ctx, sctx context.Context, f store.Feed) error {
	f.Catalogue = model.CatalogueInterrupted
	if err := c.Store.UpdateFeed(sctx, f); err != nil {
		return err
	}
	return ctx.Err()
}

// firstCataloguePage is the feed's declared next page, or ?paged=2.
func firstCataloguePage(feedURL, next string) string {
	if next != "" {
		return next
	}
	return pagedURL(feedURL, 2)
}

// pagedURL is feedURL with paged=n (WordPress's archive pages).
func pagedURL(feedURL string, n int) string {
	u, err := url.Parse(feedURL)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("paged", strconv.Itoa(n))
	u.RawQuery = q.Encode()
	return u.String()
}
