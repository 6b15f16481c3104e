package crawl

import (
	"context"
	"corpus.blog/corpusbot/internal/config"
	"fmt"
	"io"
	"net/url"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sitemapclass"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/sitemap"
)

// maxIndexDepth bounds sitemap indexes listing indexes.
const maxIndexDepth = 2

// ReadSitemap reads a sitemap conditionally. A urlset's URLs that
// sitemapclass.WantsPage accepts are diffed against the last read
// (store.DB.IngestSitemap: new, modified by lastmod, removed when the read was
// whole); the others are counted by kind (sitemapskip.go). An index
// records its children's lastmods and kinds and reads, newest first, only
// the children named like posts or like nothing known, never read or whose
// lastmod advanced since they were. A sitemap whose name says it lists no
// posts is recorded as skipped, not fetched.
func (c *Crawler) ReadSitemap(ctx context.Context, sm store.Sitemap) error {
	return c.readSitemap(ctx, sm, 0)
}

func (c *Crawler) readSitemap(ctx context.Context, sm store.Sitemap, depth int) error {
	class, read := sitemapClass(sm.URL)
	if !read {
		return c.skipSitemap(ctx, sm, class)
	}
	if sm.State == model.SitemapSkipped {
		sm.State = model.SitemapActive // skipped under an older rule: read from now on
	}
	sink := &urlSink{kind: class.Kind, open: func(context.Context) (*store.SitemapIngest, error) {
		return c.Store.SitemapIngest(sm, c.Clock.Now()), nil
	}}
	got := c.fetchSitemap(ctx, sm.URL, sm.ETag, sm.LastModified, sink)
	if cutOff(ctx, got.res) || (ctx.Err() != nil && got.urls.err != nil) {
		// Cut off by a stop before its end (or while its entries were
		// being stored): whatever chunks were stored stay; nothing is
		// marked removed and the sitemap is not marked read: it is due
		// again. One read whole is stored, stop or not (cutoff.go).
		return ctx.Err()
	}
	return c.storeSitemap(ctx, sm, got, depth)
}

// sitemapRead is one read of a sitemap: the fetch's result and what the
// parser took of its body.
type sitemapRead struct {
	res  fetch.Result
	urls *urlSink // a urlset's entries, handed to the store as they came
	kids []sitemap.Entry
	sum  sitemap.Summary
	perr error // the body is not a sitemap, or broke off
}

// urlSink takes a urlset's entries as the parser finds them. Those
// sitemapclass.WantsPage accepts for a sitemap of kind are handed to the store
// (store.SitemapIngest, which stores them a chunk at a time) and not kept;
// the others are counted by their kind. The kind is the sitemap's as named
// by the URL read (not by where a redirect took it: that is known only at
// the end). The store's ingest is opened by
// open, called once, at the first wanted entry, or, with openAfter, once a
// chunk's worth (store.SitemapChunk) is held: a candidate found at a
// well-known path is recorded only once its body has shown it is a
// sitemap. An open that returns no ingest drops the entries (a sitemap
// held already, not stored again).
type urlSink struct {
	kind      sitemapclass.Kind
	open      func(context.Context) (*store.SitemapIngest, error) // nil once called
	openAfter int
	in        *store.SitemapIngest
	held      []store.SitemapURL // before open
	listed    int                // entries of the urlset
	wanted    int                // of them, handed to the store
	// the others, by their kind, as Sitemap.SkippedPages... count them
	pages, taxonomies, authors, other int
	err                               error // the store's, which stopped the read
}

// add takes one entry of the urlset; an error (the store's) stops the
// parse.
func (s *urlSink) add(ctx context.Context, u store.SitemapURL) error {
	s.listed++
	entry := sitemapclass.OfEntry(u.Loc)
	if !sitemapclass.WantsPage(s.kind, entry) {
		switch entry.Kind {
		case sitemapclass.KindPages:
			s.pages++
		case sitemapclass.KindTaxonomies:
			s.taxonomies++
		case sitemapclass.KindAuthors:
			s.authors++
		default:
			s.other++
		}
		return nil
	}
	s.wanted++
	if s.open != nil {
		if len(s.held) < s.openAfter {
			s.held = append(s.held, u)
			return nil
		}
		if err := s.start(ctx); err != nil {
			return err
		}
	}
	if s.in == nil {
		return nil
	}
	if err := s.in.Add(ctx, u); err != nil {
		s.err = err
		return err
	}
	return nil
}

// start opens the store's ingest and hands it the entries held.
func (s *urlSink) start(ctx context.Context) error {
	open := s.open
	s.open = nil
	in, err := open(ctx)
	if err != nil {
		s.err = err
		return err
	}
	held := s.held
	s.in, s.held = in, nil
	if in != nil {
		if err := in.Add(ctx, held...); err != nil {
			s.err = err
			return err
		}
	}
	return nil
}

// finish stores the entries still held and ends the read, whole or not
// (store.SitemapIngest.Finish), and counts the entries not wanted on sm.
func (s *urlSink) finish(ctx context.Context, sm *store.Sitemap, whole bool) (store.Diff, error) {
	sm.SkippedPages, sm.SkippedTaxonomies, sm.SkippedAuthors, sm.SkippedOther = s.pages, s.taxonomies, s.authors, s.other
	if s.open != nil {
		if err := s.start(ctx); err != nil {
			return store.Diff{}, err
		}
	}
	if s.in == nil {
		return store.Diff{}, nil
	}
	return s.in.Finish(ctx, whole)
}

// fetchSitemap reads u (conditionally with the validators given), the
// body parsed as it arrives, under the sitemap protocol's limits (50,000
// entries, 50 MB uncompressed), never held whole: a urlset's entries go to
// urls as they are found (and, through it, to the store a chunk at a time).
func (c *Crawler) fetchSitemap(ctx context.Context, u, etag, lastModified string, urls *urlSink) sitemapRead {
	r := sitemapRead{urls: urls}
	read := func(finalURL string, body io.Reader) {
		base, _ := url.Parse(finalURL)
		r.sum, r.perr = sitemap.Read(body, sitemap.Options{Base: base}, func(e sitemap.Entry) error {
			if e.Type == sitemap.Sitemap {
				r.kids = append(r.kids, e)
				return nil
			}
			return urls.add(ctx, store.SitemapURL{Loc: e.Loc, Lastmod: e.Lastmod})
		})
	}
	r.res = c.fetch(ctx, fetch.Request{URL: u, Purpose: model.PurposeSitemap, ETag: etag, LastModified: lastModified, Stream: read})
	return r
}

// storeSitemap stores what a read of sm found: a urlset's wanted URLs
// diffed against the last read and the others counted, an index's
// children with their kinds (read in turn below maxIndexDepth, unless
// skipped), the validators for the next read; a fault that says "try
// later" leaves sm as it was until its retry. The urlset's entries were
// handed to the store as they came (urlSink): what it stored before a
// fault stays, but nothing is marked removed unless the read was whole,
// and sm is marked read only once every entry is stored.
//
// It fetches (the children) under ctx and records under a context a stop
// does not end at once (cutoff.go): a read had is stored whatever comes
// after, and an index whose children a stop cut off keeps the validators
// of its read, due still, so that the next run asks it conditionally and
// reads the children it did not reach.
func (c *Crawler) storeSitemap(ctx context.Context, sm store.Sitemap, got sitemapRead, depth int) error {
	if err := got.urls.err; err != nil {
		// The store failed mid-read: sm stays as it was, due again.
		return fmt.Errorf("sitemap %s: %w", sm.URL, err)
	}
	sctx, done := saving(ctx)
	defer done()
	res, now := got.res, c.Clock.Now()
	if res.Moved && res.FinalURL != sm.URL && (res.Outcome == model.OutcomeFetched || res.Outcome == model.OutcomeUnchanged) {
		// Moved for good: read where it lives from now on (the old URL is
		// kept as an alias).
		if err := c.Store.MoveSitemap(sctx, sm.ID, res.FinalURL); err != nil {
			c.Log.Warn("moved sitemap not recorded", "sitemap", sm.URL, "to", res.FinalURL, "err", err)
			c.progress.Load().failure(reasonNotRecorded, 1)
		} else {
			c.learnSpelling(sctx, sm.URL, res.FinalURL, false)
			sm.URL = res.FinalURL
		}
	}
	class, _ := sitemapClass(sm.URL)
	sm.Kind = class.Kind.String()
	switch res.Outcome {
	case model.OutcomeUnchanged:
		// The index is as it was; children never read (or whose retry is
		// due) are read all the same.
		if err := c.readChildren(ctx, sm, depth); err != nil {
			return err // its validators are stored already
		}
		sm.State, sm.Error, sm.LastRead, sm.ReadLastmod, sm.Attempts, sm.RetryAt = model.SitemapActive, "", now, sm.Lastmod, 0, time.Time{}
		return c.Store.UpdateSitemap(sctx, sm)
	case model.OutcomeFetched:
	default:
		// What the parser handed to the store before the body failed is
		// kept (new posts, lastmods); nothing is removed.
		if retry, ok := c.retryOf(ctx, res.Site, res, sm.Attempts); ok {
			sm.Attempts, sm.RetryAt, sm.Error = retry.Attempts, retry.At, retry.Error
			c.Meter.RetryScheduled(retrySitemap)
			c.Log.Info("sitemap to be retried", "sitemap", sm.URL, "at", retry.At, "tries", retry.Attempts, "err", retry.Error)
			return c.Store.UpdateSitemap(sctx, sm)
		}
		sm.State, sm.Error, sm.LastRead, sm.Attempts, sm.RetryAt = model.SitemapError, errText(res), now, 0, time.Time{}
		if res.Outcome == model.OutcomeDisallowed {
			sm.State = model.SitemapDisallowed
		}
		return c.Store.UpdateSitemap(sctx, sm)
	}
	if got.perr != nil {
		sm.State, sm.Error, sm.LastRead, sm.Attempts, sm.RetryAt = model.SitemapError, got.perr.Error(), now, 0, time.Time{}
		return c.Store.UpdateSitemap(sctx, sm)
	}
	sm.Note = readNote(got.sum)
	if got.sum.Truncated {
		// Kept as far as the cut; the read is not whole, so nothing it
		// did not reach is taken as removed.
		c.Log.Warn("sitemap truncated", "sitemap", sm.URL, "reason", got.sum.Reason, "entries", got.sum.Entries())
	}
	if got.urls.listed > 0 || got.sum.Format != sitemap.FormatIndex {
		// The entries not wanted are left out of the read as if the
		// sitemap did not list them: a whole read withdraws one an older
		// rule took for a post.
		diff, err := got.urls.finish(sctx, &sm, got.sum.Whole())
		if err != nil {
			return fmt.Errorf("sitemap %s: %w", sm.URL, err)
		}
		c.progress.Load().posts(diff.New, diff.Modified, diff.Removed)
		c.Log.Info("sitemap read", "sitemap", sm.URL, "kind", class.Kind, "urls", got.urls.listed, "wanted", got.urls.wanted,
			"new", diff.New, "modified", diff.Modified, "removed", diff.Removed, "returned", diff.Returned, "whole", got.sum.Whole(),
			"skipped_pages", sm.SkippedPages, "skipped_taxonomies", sm.SkippedTaxonomies, "skipped_authors", sm.SkippedAuthors,
			"skipped_other", sm.SkippedOther)
	}
	for _, k := range got.kids {
		// The child's lastmod is recorded as the index states it now, read
		// or not; one named like a sitemap of no posts is recorded as
		// skipped and never fetched (readChildren passes it by).
		kc, read := sitemapClass(k.Loc)
		child := store.Sitemap{SourceID: sm.SourceID, URL: k.Loc, Via: sm.Via, ParentID: sm.ID, Lastmod: k.Lastmod, Kind: kc.Kind.String()}
		if !read {
			child.State = model.SitemapSkipped
		}
		if _, err := c.Store.AddSitemap(sctx, child); err != nil {
			return err
		}
	}
	if len(got.kids) > 0 && depth < maxIndexDepth {
		if err := c.readChildren(ctx, sm, depth); err != nil {
			if ctx.Err() != nil {
				// Stopped among its children, all recorded: the index keeps
				// the validators of this read, not the read itself.
				sm.ETag, sm.LastModified = res.ETag, res.LastModified
				if uerr := c.Store.UpdateSitemap(sctx, sm); uerr != nil {
					c.Log.Warn("validators of a sitemap index cut off not stored", "sitemap", sm.URL, "err", uerr)
					c.progress.Load().failure(reasonNotRecorded, 1)
				}
			}
			return err
		}
	}
	sm.State, sm.Error, sm.LastRead, sm.ETag, sm.LastModified, sm.ReadLastmod = model.SitemapActive, "", now, res.ETag, res.LastModified, sm.Lastmod
	sm.Attempts, sm.RetryAt = 0, time.Time{}
	return c.Store.UpdateSitemap(sctx, sm)
}

// childDue reports whether the child sitemap k of an index being read is
// due for a read of its own at now: never read; its lastmod in the index
// advanced since it was; without a lastmod, SITEMAP_INTERVAL since its last
// read; and in any case SITEMAP_RECHECK since its last read. The last is
// for the indexes WordPress and Yoast write, whose child lastmod is the
// newest post's date: a post removed leaves the index byte-identical, and
// only a read of the child itself (conditional, so a 304 if nothing
// changed) can see the removal.
func childDue(k store.Sitemap, now time.Time, s config.Settings) bool {
	sinceRead := now.Sub(k.LastRead)
	return k.LastRead.IsZero() || k.Lastmod.After(k.ReadLastmod) ||
		(k.Lastmod.IsZero() && sinceRead >= s.SitemapInterval) || sinceRead >= s.SitemapRecheck
}

// readNote is what a read that was not whole leaves noted on its sitemap,
// which stays active with what was read: where the operator looks
// (export --sources, the public site), not only in a log line. "" for a
// whole read.
func readNote(sum sitemap.Summary) string {
	switch {
	case sum.Truncated:
		return fmt.Sprintf("cut at the protocol's limit (%s): the first %d entries kept", sum.Reason, sum.Entries())
	case sum.Broken:
		return fmt.Sprintf("broke off (%s): the first %d entries kept", sum.Reason, sum.Entries())
	case !sum.Whole():
		return fmt.Sprintf("more lines that are not URLs (%d) than URLs (%d): the URLs kept, none taken as removed", sum.Skipped, sum.URLs)
	}
	return ""
}

// readChildren reads an index's children newest lastmod first, skipping
// those whose name says they list no posts (recorded as skipped, when a
// row is not yet), those not due (childDue) and those waiting for a retry.
func (c *Crawler) readChildren(ctx context.Context, parent store.Sitemap, depth int) error {
	kids, err := c.Store.ChildSitemaps(ctx, parent.ID)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if class, read := sitemapClass(k.URL); !read {
			if k.State != model.SitemapSkipped || k.Kind != class.Kind.String() {
				if err := c.skipSitemap(ctx, k, class); err != nil {
					return err
				}
			}
			continue
		}
		due := childDue(k, c.Clock.Now(), c.Settings)
		if !due || k.RetryAt.After(c.Clock.Now()) { // a retry is read at its time, by the frontier
			continue
		}
		if err := c.readSitemap(ctx, k, depth+1); err != nil {
			return err
		}
	}
	return nil
}
