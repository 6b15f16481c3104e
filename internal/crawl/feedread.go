package crawl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
	"golang.org/x/text/language"
)

// PollFeed reads page one of a feed, conditionally. A 304 changes nothing
// but the read time. New entries are stored (full-content ones with their
// text, the rest owed one page fetch); an entry already held inserts
// nothing, unless its date advanced, which makes a conditional re-fetch due.
// A feed robots.txt disallows is marked disallowed and kept: FeedsDue
// offers it again after a week, and a read that is allowed makes it active.
func (c *Crawler) PollFeed(ctx context.Context, f store.Feed) error {
	res := c.fetch(ctx, fetch.Request{URL: f.URL, Purpose: model.PurposeFeed, ETag: f.ETag, LastModified: f.LastModified})
	if cutOff(ctx, res) {
		return ctx.Err() // nothing recorded: the poll is simply due again
	}
	// An answer had is stored, stop or not (cutoff.go).
	sctx, done := saving(ctx)
	defer done()
	now := c.Clock.Now()
	f.Checked = now
	c.followFeed(sctx, &f, res)
	switch res.Outcome {
	case model.OutcomeUnchanged:
		f.State, f.Error, f.LastRead, f.Attempts, f.RetryAt = model.FeedActive, "", now, 0, time.Time{}
		c.observe(&f, now, nil, nil)
		c.stretch(&f, now, c.pushedUntil(sctx, f.ID, now))
		return c.Store.UpdateFeed(sctx, f)
	case model.OutcomeFetched:
	default:
		if retry, ok := c.retryOf(ctx, res.Site, res, f.Attempts); ok && f.State == model.FeedActive {
			// Still active: read again at the retry (FeedsToRead).
			f.Attempts, f.RetryAt, f.Error = retry.Attempts, retry.At, retry.Error
			c.Meter.RetryScheduled(retryFeed)
			c.Log.Info("feed to be retried", "feed", f.URL, "at", retry.At, "tries", retry.Attempts, "err", retry.Error)
			return c.Store.UpdateFeed(sctx, f)
		}
		f.State, f.Error, f.Attempts, f.RetryAt = failedFeedState(res), errText(res), 0, time.Time{}
		c.Log.Info("feed not read", "feed", f.URL, "state", f.State, "err", f.Error)
		return c.Store.UpdateFeed(sctx, f)
	}
	parsed, err := c.ingestFeed(sctx, f, feedBody{
		Body: res.Body, URL: res.FinalURL, ETag: res.ETag, LastModified: res.LastModified, save: c.Store.FeedRead,
	}, now)
	if parsed != nil {
		c.noticeHub(sctx, f, parsed, res)
	}
	return err
}

// feedBody is one feed document to ingest: a poll's response or a WebSub
// delivery's body, and how to store what it held.
type feedBody struct {
	Body               []byte
	URL                string // where it came from: the base of its links
	ETag, LastModified string // validators for the next poll
	// save stores the posts and the feed's new standing in one step
	// (Store.FeedRead for a poll).
	save func(ctx context.Context, posts []store.NewPost, update func(store.AddResult) store.Feed) (store.AddResult, error)
	// pushed: a delivery, which leaves the feed as it is when it cannot
	// be read (the next poll judges the feed, not a hub's one message).
	pushed bool
}

// ingestFeed stores what one feed document holds, as read at now: new
// entries are stored (full-content ones with their text, the rest owed
// one page fetch), an entry already held inserts nothing unless its date
// advanced, and the feed's history and next read are updated. It returns
// the parsed feed, nil when the document was not a feed of posts.
func (c *Crawler) ingestFeed(ctx context.Context, f store.Feed, b feedBody, now time.Time) (*feed.Feed, error) {
	parsed, err := feed.Parse(b.Body, b.URL)
	if err == nil && parsed.IsComments {
		err = errors.New("a comment feed")
	}
	if err != nil {
		if b.pushed {
			return nil, fmt.Errorf("delivery for %s: %w", f.URL, err)
		}
		f.State, f.Error = model.FeedError, err.Error()
		return nil, c.Store.UpdateFeed(ctx, f)
	}
	f.State, f.Error, f.LastRead, f.ETag, f.LastModified = model.FeedActive, "", now, b.ETag, b.LastModified
	f.Attempts, f.RetryAt = 0, time.Time{}
	f.Title = parsed.Title
	if f.Catalogue == model.CatalogueNone && f.NextPage == "" {
		f.NextPage = firstCataloguePage(f.URL, parsed.Next)
	}
	posts := newPosts(f.SourceID, parsed, now)
	all := make([]time.Time, len(posts))
	for i, p := range posts {
		all[i] = p.Published
	}
	pushedUntil := c.pushedUntil(ctx, f.ID, now)
	// update may run more than once (a transaction retried): each run
	// starts from the feed as read.
	added, err := b.save(ctx, posts, func(r store.AddResult) store.Feed {
		g := f
		var fresh []time.Time
		for _, i := range r.New {
			fresh = append(fresh, posts[i].Published)
		}
		c.observe(&g, now, fresh, all)
		c.stretch(&g, now, pushedUntil)
		return g
	})
	if err != nil {
		if b.pushed {
			return parsed, fmt.Errorf("delivery for %s: %w", f.URL, err)
		}
		return parsed, fmt.Errorf("poll %s: %w", f.URL, err)
	}
	msg := "feed read"
	if b.pushed {
		msg = "feed delivery read"
	}
	c.progress.Load().posts(added.Added, added.Modified, 0)
	c.Log.Info(msg, "feed", f.URL, "entries", len(parsed.Entries), "new", added.Added, "modified", added.Modified)
	return parsed, nil
}

// failedFeedState is disallowed when robots.txt rules (or a robots.txt
// refusal) keep us out, error otherwise: an unreachable robots.txt pauses
// crawling without saying no.
func failedFeedState(res fetch.Result) string {
	var de *fetch.DisallowedError
	if errors.As(res.Err, &de) && de.State != robots.StateUnreachable {
		return model.FeedDisallowed
	}
	if res.Outcome == model.OutcomeDisallowed && res.Robots != robots.StateUnreachable {
		return model.FeedDisallowed
	}
	return model.FeedError
}

// errText is why a fetch failed, as stored with the item: a few stable
// words (fetch.Result.Reason), the item's own URL being on its record.
func errText(res fetch.Result) string {
	if r := res.Reason(); r != "" {
		return r
	}
	return fmt.Sprintf("%s (status %d)", res.Outcome, res.Status)
}

// newPosts turns a feed's entries, read at seen, into posts; entries
// without a link, or linking to a comment feed, are not posts.
func newPosts(sourceID int64, f *feed.Feed, seen time.Time) []store.NewPost {
	out := make([]store.NewPost, 0, len(f.Entries))
	for _, e := range f.Entries {
		if e.Link == "" || feed.IsCommentFeedURL(e.Link) {
			continue
		}
		p := store.NewPost{URL: e.Link, SourceID: sourceID, Title: e.Title, Published: e.Published, Lastmod: e.Updated, Seen: seen}
		if p.Lastmod.IsZero() {
			p.Lastmod = e.Published
		}
		if e.FullContent {
			p.Text = htmlText(e.Content)
			p.Meta = store.Meta{Author: e.Author, Language: feedLanguage(e.Language), Tags: e.Categories}
		}
		out = append(out, p)
	}
	return out
}

// feedLanguage is the ISO 639-1 code of the language a feed declares ("de"
// of "de-DE"), as a page's is recorded; "" when it names no known language.
func feedLanguage(tag string) string {
	t, err := language.Parse(strings.ReplaceAll(strings.TrimSpace(tag), "_", "-"))
	if err != nil {
		return ""
	}
	b, conf := t.Base()
	if conf != language.Exact || len(b.String()) != 2 { // "und" guesses "en", with low confidence
		return ""
	}
	return b.String()
}

// followFeed records where a feed that moved for good (every redirect a
// 301 or 308) lives now, so that its next read costs one request; the old
// URL stays an alias. A 302 or 307 changes nothing.
func (c *Crawler) followFeed(ctx context.Context, f *store.Feed, res fetch.Result) {
	if !res.Moved || res.FinalURL == f.URL || (res.Outcome != model.OutcomeFetched && res.Outcome != model.OutcomeUnchanged) {
		return
	}
	if err := c.Store.MoveFeed(ctx, f.ID, res.FinalURL); err != nil {
		c.Log.Warn("moved feed not recorded", "feed", f.URL, "to", res.FinalURL, "err", err)
		c.progress.Load().failure(reasonNotRecorded, 1)
		return
	}
	c.Log.Info("feed moved", "feed", f.URL, "to", res.FinalURL)
	c.learnSpelling(ctx, f.URL, res.FinalURL, false)
	f.URL = res.FinalURL
}
