package crawl

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sourcelist"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/urlkey"
	"corpus.blog/corpusbot/robots"
)

// WellKnownFeedPaths are tried, in order, only when the homepage declares no
// feed: the paths of WordPress (/feed, ?feed=rss2), Blogger and most static
// site generators (/atom.xml, /feed.xml, /index.xml for Hugo, /rss.xml),
// and /rss. The first that parses as a feed of posts is kept.
var WellKnownFeedPaths = []string{"/feed", "/rss", "/atom.xml", "/feed.xml", "/index.xml", "/rss.xml", "/?feed=rss2"}

// fallbackPages are the pages whose <link rel="alternate"> tags are read
// when the homepage declares no feed and no well-known path is one.
var fallbackPages = []string{"/blog", "/news"}

// Discover finds a source's feeds: robots.txt first (the fetcher reads it
// before anything else of the origin; its standing is recorded), then the
// homepage's <link rel="alternate">, and only when it declares none the
// well-known paths and the tags of /blog and /news. Comment feeds are
// refused by name and path. The source is marked discovered at the end, so
// an interrupted discovery is done again whole (adding a feed is
// idempotent).
func (c *Crawler) Discover(ctx context.Context, src store.Source) error {
	home, err := url.Parse(src.URL)
	if err != nil {
		return fmt.Errorf("discover %s: %w", src.URL, err)
	}
	e, err := c.recordOrigin(ctx, src)
	if err != nil {
		if ctx.Err() == nil && fetch.OurNetworkFailed(err) {
			// Our network reached nothing: tried again on the retry schedule.
			res := fetch.Result{Outcome: model.OutcomeError, FinalURL: src.URL, Site: src.Site, FinalSite: src.Site, Err: err}
			return c.retryDiscovery(ctx, src, src.Site, res, "robots.txt", c.Store.PostponeDiscovery)
		}
		return err
	}
	if paused(e) {
		// Asked again when robots.txt is: its own retry, not a try of ours.
		return c.postpone(ctx, src, store.Retry{Attempts: src.Attempts, At: e.Expires, Error: c.robotsUnreachable(src)}, c.Store.PostponeDiscovery)
	}
	if known, err := c.addedByFeed(ctx, src); err != nil || known {
		if err != nil {
			return err
		}
		if done, err := c.discoverFeedSource(ctx, src); err != nil || done {
			return err
		}
	}
	found, res, err := c.pageFeeds(ctx, src, src.URL)
	if err != nil {
		return err
	}
	if cutOff(ctx, res) {
		return ctx.Err() // not marked: the next run discovers it again
	}
	if res.Outcome == model.OutcomeWrongType {
		// Not a page: a source added by its feed's URL (sources add
		// https://blog.example/feed/) is its blog, named by the feed.
		if done, err := c.discoverFeedSource(ctx, src); err != nil || done {
			return err
		}
	}
	if failed(res) {
		return c.retryDiscovery(ctx, src, src.Site, res, "homepage", c.Store.PostponeDiscovery)
	}
	var broken *fetch.Result // a candidate that gave no answer to judge by
	for _, p := range WellKnownFeedPaths {
		if found > 0 || ctx.Err() != nil {
			break
		}
		u := home.ResolveReference(&url.URL{Path: pathOnly(p), RawQuery: queryOnly(p)}).String()
		ok, err := c.feedCandidate(ctx, src, u, &broken)
		if err != nil {
			return err
		}
		if ok {
			found++
		}
	}
	for _, p := range fallbackPages {
		if found > 0 || ctx.Err() != nil {
			break
		}
		n, res, err := c.pageFeeds(ctx, src, home.ResolveReference(&url.URL{Path: p}).String())
		if err != nil {
			return err
		}
		if failed(res) && broken == nil {
			broken = &res
		}
		found += n
	}
	if err := ctx.Err(); err != nil && found == 0 {
		return err // not marked: the next run discovers it again
	}
	if found == 0 && broken != nil {
		// "No feed" is not concluded from a site that did not answer.
		return c.retryDiscovery(ctx, src, broken.FinalSite, *broken, "well-known feed paths", c.Store.PostponeDiscovery)
	}
	// A feed found is a discovery whole, stop or not (cutoff.go): the
	// homepage that named it is not asked again.
	sctx, done := saving(ctx)
	defer done()
	c.Log.Info("discovered", "source", src.URL, "feeds", found)
	return c.Store.MarkDiscovered(sctx, src.ID, c.Clock.Now())
}

// feedCandidate fetches a well-known feed path and, when it is a feed of
// posts, adds it with that fetch as its first read: a verified candidate
// is not downloaded again. A candidate that gave no answer to judge by is
// noted in broken.
func (c *Crawler) feedCandidate(ctx context.Context, src store.Source, u string, broken **fetch.Result) (bool, error) {
	res := c.fetch(ctx, fetch.Request{URL: u, Purpose: model.PurposeFeed})
	if res.Outcome != model.OutcomeFetched {
		if failed(res) && *broken == nil && !cutOff(ctx, res) {
			*broken = &res
		}
		return false, nil
	}
	parsed, err := feed.Parse(res.Body, u)
	if err != nil || parsed.IsComments || len(parsed.Entries) == 0 || feed.IsCommentFeedURL(u) {
		return false, nil
	}
	// A feed read whole is stored, stop or not (cutoff.go).
	sctx, done := saving(ctx)
	defer done()
	f, err := c.Store.AddFeed(sctx, store.Feed{SourceID: src.ID, URL: u})
	if err != nil {
		return false, fmt.Errorf("discover %s: %w", src.URL, err)
	}
	if !f.LastRead.IsZero() {
		return true, nil // held already, read by its own schedule
	}
	now := c.Clock.Now()
	f.Checked = now
	_, err = c.ingestFeed(sctx, f, feedBody{
		Body: res.Body, URL: res.FinalURL, ETag: res.ETag, LastModified: res.LastModified, save: c.Store.FeedRead,
	}, now)
	return true, err
}

// pageFeeds adds the feeds an HTML page declares.
func (c *Crawler) pageFeeds(ctx context.Context, src store.Source, pageURL string) (int, fetch.Result, error) {
	res := c.fetch(ctx, fetch.Request{URL: pageURL, Purpose: model.PurposePage})
	if res.Outcome != model.OutcomeFetched {
		return 0, res, nil
	}
	// Only the feed links are wanted of the page: its body is not handed
	// back, and its room in the fetcher's body budget is given back once
	// they are read, not when a collection finds the body.
	body := res.Body
	res.Body = nil
	defer res.Release()
	// The feeds a page read whole names are stored, stop or not (cutoff.go).
	sctx, done := saving(ctx)
	defer done()
	n := 0
	for _, l := range feed.Discover(body, res.FinalURL) {
		if feed.IsCommentFeedURL(l.URL) {
			continue
		}
		if err := c.addFeed(sctx, src, l.URL); err != nil {
			return n, res, err
		}
		n++
	}
	return n, res, nil
}

// paused is a robots.txt that could not be read (crawling paused): nothing
// about the source can be learnt until it can.
// robotsUnreachable is why a source's discovery waits for its robots.txt:
// "robots.txt unreachable", with the last request's failure ("DNS
// failure", "status 503" …) when this process saw it, or else the reason
// the source already holds from an earlier one, so that the source keeps
// saying why (export --sources, the public site, the run summary).
func (c *Crawler) robotsUnreachable(src store.Source) string {
	const why = "robots.txt unreachable"
	if origin, err := robotsOrigin(src); err == nil {
		if r, ok := c.robotsWhy.Load(origin); ok && r.(string) != "" {
			return why + ": " + r.(string)
		}
	}
	if strings.HasPrefix(src.Error, why+": ") {
		return src.Error
	}
	return why
}

func paused(e fetch.RobotsEntry) bool { return e.Verdict.State == robots.StateUnreachable }

// failed is a fetch that got no answer worth judging by: no connection, a
// timeout, a 429 or a 5xx. A source is not judged feedless on one.
func failed(res fetch.Result) bool {
	return res.Transient() || (res.Outcome == model.OutcomeDisallowed && res.Robots == robots.StateUnreachable)
}

// retryDiscovery puts off a discovery (or sitemap discovery, by put) that
// failed on a request to site: until its retry, or, when every try has failed, for
// ROBOTS_GUESS_TTL.
func (c *Crawler) retryDiscovery(ctx context.Context, src store.Source, site string, res fetch.Result, what string,
	put func(context.Context, int64, store.Retry) error) error {
	r, ok := c.retryOf(ctx, site, res, src.Attempts)
	r.Error = what + ": " + r.Error
	if !ok {
		r = c.retryGuess(r.Error)
	} else {
		c.Meter.RetryScheduled(retryDiscovery)
	}
	return c.postpone(ctx, src, r, put)
}

// postpone stores a discovery put off until r.At.
func (c *Crawler) postpone(ctx context.Context, src store.Source, r store.Retry, put func(context.Context, int64, store.Retry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.At.IsZero() {
		r.At = c.Clock.Now().Add(fetch.FirstRetry)
	}
	c.Log.Info("discovery postponed", "source", src.URL, "until", r.At, "why", r.Error)
	return put(ctx, src.ID, r)
}

func (c *Crawler) addFeed(ctx context.Context, src store.Source, u string) error {
	if _, err := c.Store.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: u}); err != nil {
		return fmt.Errorf("discover %s: %w", src.URL, err)
	}
	return nil
}

// recordOrigin asks the fetcher for the origin's robots.txt entry and
// stores its standing, with whether the file it obeys shuts this crawler
// out of the whole origin (the source state "blocked"; the store matches
// no robots rules itself).
func (c *Crawler) recordOrigin(ctx context.Context, src store.Source) (fetch.RobotsEntry, error) {
	origin, err := robotsOrigin(src)
	if err != nil {
		return fetch.RobotsEntry{}, err
	}
	e, err := c.robots(ctx, src)
	if err != nil {
		return e, fmt.Errorf("robots %s: %w", src.URL, err)
	}
	// The standing robots.txt gave is stored, stop or not (cutoff.go).
	sctx, done := saving(ctx)
	defer done()
	status, _ := c.robotsStatus.Load(origin)
	o := model.Origin{Origin: origin, State: string(e.Verdict.State), Checked: e.Checked,
		Blocked: e.BlocksAll(c.agent())}
	if s, ok := status.(int); ok {
		o.Status = s
	} else if prev, err := c.Store.Origin(sctx, origin); err == nil {
		o.Status = prev.Status // read by an earlier process, still cached
	}
	return e, c.Store.PutOrigin(sctx, o)
}

// robotsOrigin is the origin of src's homepage, whose robots.txt
// governs its discovery: the key under which Observe keeps what the reads
// of that robots.txt answered (model.RequestRecord.Origin). A source's URL is
// the one URL the crawler holds before any request has derived it.
func robotsOrigin(src store.Source) (string, error) {
	u, err := url.Parse(src.URL)
	if err != nil {
		return "", err
	}
	return model.OriginOf(u), nil
}

func pathOnly(p string) string {
	u, _ := url.Parse(p)
	return u.Path
}

func queryOnly(p string) string {
	u, _ := url.Parse(p)
	return u.RawQuery
}

// addedByFeed reports whether src was added as a feed: its URL is one of
// its own feeds' (an OPML outline with an xmlUrl and no htmlUrl records
// its feed with the source), so that its discovery reads the feed instead
// of asking for it as a page.
func (c *Crawler) addedByFeed(ctx context.Context, src store.Source) (bool, error) {
	feeds, err := c.Store.SourceFeeds(ctx, src.ID)
	if err != nil {
		return false, fmt.Errorf("discover %s: %w", src.URL, err)
	}
	for _, f := range feeds {
		if same(f.URL, src.URL) {
			return true, nil
		}
	}
	return false, nil
}

// discoverFeedSource discovers a source whose URL is a feed's (see
// sourcelist's source identity): the feed is read, with this fetch as its
// first read, and the source becomes the blog the feed's channel link
// names (sourcelist.FeedHome), or is merged into the source that already
// has that homepage or that feed, so that a blog added by its feed and by
// its homepage is one source, discovered and searched for sitemaps once.
// done is false when the URL is not a feed after all (the caller then
// discovers it as a homepage).
func (c *Crawler) discoverFeedSource(ctx context.Context, src store.Source) (done bool, err error) {
	res := c.fetch(ctx, fetch.Request{URL: src.URL, Purpose: model.PurposeFeed})
	if cutOff(ctx, res) {
		return true, ctx.Err() // not marked: the next run discovers it again
	}
	if res.Outcome != model.OutcomeFetched {
		if failed(res) {
			return true, c.retryDiscovery(ctx, src, src.Site, res, "feed", c.Store.PostponeDiscovery)
		}
		return false, nil
	}
	parsed, perr := feed.Parse(res.Body, res.FinalURL)
	if perr != nil || parsed.IsComments || feed.IsCommentFeedURL(src.URL) {
		return false, nil
	}
	// The feed read whole, and the discovery it makes whole, are stored,
	// stop or not (cutoff.go).
	sctx, release := saving(ctx)
	defer release()
	blog := src
	if home, ok := sourcelist.FeedHome(res.FinalURL, parsed.Link); ok {
		if blog, err = c.Store.RehomeSource(sctx, src.ID, home); err != nil {
			return true, fmt.Errorf("discover %s: %w", src.URL, err)
		}
	}
	// The feed, under the blog's source; when the blog already has it in
	// another spelling (a trailing slash, http), that one.
	f, err := c.blogFeed(sctx, blog.ID, src.URL)
	if err != nil {
		return true, fmt.Errorf("discover %s: %w", src.URL, err)
	}
	if f.SourceID != blog.ID {
		// Another source holds the feed: the blog's homepage, discovered
		// first (under a homepage the channel link does not name).
		if err := c.Store.MergeSource(sctx, blog.ID, f.SourceID); err != nil {
			return true, fmt.Errorf("discover %s: %w", src.URL, err)
		}
		if blog, err = c.Store.Source(sctx, f.SourceID); err != nil {
			return true, fmt.Errorf("discover %s: %w", src.URL, err)
		}
	}
	if blog.ID != src.ID {
		c.Log.Info("source is the same blog as another: merged", "source", src.URL, "into", blog.URL, "into_id", blog.ID)
	}
	if f.LastRead.IsZero() {
		now := c.Clock.Now()
		f.Checked = now
		if _, err := c.ingestFeed(sctx, f, feedBody{
			Body: res.Body, URL: res.FinalURL, ETag: res.ETag, LastModified: res.LastModified, save: c.Store.FeedRead,
		}, now); err != nil {
			return true, err
		}
	}
	if blog.ID != src.ID {
		return true, nil // the blog's source is discovered on its own
	}
	c.Log.Info("discovered", "source", blog.URL, "feed", src.URL)
	return true, c.Store.MarkDiscovered(sctx, src.ID, c.Clock.Now())
}

// blogFeed is the feed at feedURL of source id: one it holds whose URL is
// feedURL or a variant of it (scheme, "www.", final slash), else what
// AddFeed gives for feedURL (a new feed of id's, or the one another source
// holds).
func (c *Crawler) blogFeed(ctx context.Context, id int64, feedURL string) (store.Feed, error) {
	feeds, err := c.Store.SourceFeeds(ctx, id)
	if err != nil {
		return store.Feed{}, err
	}
	want, kerr := urlkey.Key(feedURL)
	var variant *store.Feed
	for i, f := range feeds {
		if f.URL == feedURL {
			return f, nil
		}
		if k, err := urlkey.Key(f.URL); err == nil && kerr == nil && variant == nil {
			if _, ok := urlkey.Variants(k, want); ok {
				variant = &feeds[i]
			}
		}
	}
	if variant != nil {
		return *variant, nil
	}
	return c.Store.AddFeed(ctx, store.Feed{SourceID: id, URL: feedURL})
}
