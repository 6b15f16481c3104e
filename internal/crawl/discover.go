package crawl

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"corpus.blog/corpusbot/internal/feed"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/robots"
	"corpus.blog/corpusbot/internal/store"
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
	e, err := c.recordOrigin(ctx, src.URL)
	if err != nil {
		return err
	}
	if paused(e) {
		return c.postpone(ctx, src, "robots.txt unreachable", c.Store.PostponeDiscovery)
	}
	found, res, err := c.pageFeeds(ctx, src, src.URL)
	if err != nil {
		return err
	}
	if failed(res) {
		return c.postpone(ctx, src, "homepage: "+errText(res), c.Store.PostponeDiscovery)
	}
	for _, p := range WellKnownFeedPaths {
		if found > 0 || ctx.Err() != nil {
			break
		}
		u := home.ResolveReference(&url.URL{Path: pathOnly(p), RawQuery: queryOnly(p)})
		res := c.fetch(ctx, fetch.Request{URL: u.String(), Purpose: fetch.PurposeFeed})
		if res.Outcome != fetch.OutcomeFetched {
			continue
		}
		f, err := feed.Parse(res.Body, u.String())
		if err != nil || f.IsComments || len(f.Entries) == 0 || feed.IsCommentFeedURL(u.String()) {
			continue
		}
		if err := c.addFeed(ctx, src, u.String()); err != nil {
			return err
		}
		found++
	}
	for _, p := range fallbackPages {
		if found > 0 || ctx.Err() != nil {
			break
		}
		n, _, err := c.pageFeeds(ctx, src, home.ResolveReference(&url.URL{Path: p}).String())
		if err != nil {
			return err
		}
		found += n
	}
	if err := ctx.Err(); err != nil {
		return err // not marked: the next run discovers it again
	}
	c.log().Info("discovered", "source", src.URL, "feeds", found)
	return c.Store.MarkDiscovered(ctx, src.ID, c.Clock.Now())
}

// pageFeeds adds the feeds an HTML page declares.
func (c *Crawler) pageFeeds(ctx context.Context, src store.Source, pageURL string) (int, fetch.Result, error) {
	res := c.fetch(ctx, fetch.Request{URL: pageURL, Purpose: fetch.PurposePage})
	if res.Outcome != fetch.OutcomeFetched {
		return 0, res, nil
	}
	n := 0
	for _, l := range feed.Discover(res.Body, res.FinalURL) {
		if feed.IsCommentFeedURL(l.URL) {
			continue
		}
		if err := c.addFeed(ctx, src, l.URL); err != nil {
			return n, res, err
		}
		n++
	}
	return n, res, nil
}

// paused is a robots.txt that could not be read (crawling paused): nothing
// about the source can be learnt until it can.
func paused(e fetch.RobotsEntry) bool { return e.Verdict.State == robots.StateUnreachable }

// failed is a fetch that got no answer worth judging by: no connection, a
// timeout, a 429 or a 5xx. A source is not judged feedless on one.
func failed(res fetch.Result) bool {
	return res.Outcome == fetch.OutcomeError || res.Status == 429 || res.Status >= 500
}

// postpone puts a discovery off for ROBOTS_GUESS_TTL, the time an
// unreachable site's guess is kept.
func (c *Crawler) postpone(ctx context.Context, src store.Source, why string, put func(context.Context, int64, time.Time) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.log().Info("discovery postponed", "source", src.URL, "why", why)
	return put(ctx, src.ID, c.Clock.Now().Add(c.Settings.RobotsGuessTTL))
}

func (c *Crawler) addFeed(ctx context.Context, src store.Source, u string) error {
	if _, err := c.Store.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: u}); err != nil {
		return fmt.Errorf("discover %s: %w", src.URL, err)
	}
	return nil
}

// recordOrigin asks the fetcher for the origin's robots.txt entry and
// stores its standing.
func (c *Crawler) recordOrigin(ctx context.Context, rawURL string) (fetch.RobotsEntry, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fetch.RobotsEntry{}, err
	}
	e, err := c.robots(ctx, rawURL)
	if err != nil {
		return e, fmt.Errorf("robots %s: %w", rawURL, err)
	}
	origin := fetch.Origin(u)
	status, _ := c.robotsStatus.Load(origin)
	o := store.Origin{Origin: origin, State: string(e.Verdict.State), Checked: e.Checked}
	if s, ok := status.(int); ok {
		o.Status = s
	} else if prev, err := c.Store.Origin(ctx, origin); err == nil {
		o.Status = prev.Status // read by an earlier process, still cached
	}
	return e, c.Store.PutOrigin(ctx, o)
}

func pathOnly(p string) string {
	u, _ := url.Parse(p)
	return u.Path
}

func queryOnly(p string) string {
	u, _ := url.Parse(p)
	return u.RawQuery
}
