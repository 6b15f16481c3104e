// Package crawl is the crawler's jobs: discover a source, poll a feed, walk
// its catalogue, discover and read sitemaps, fetch a page. Each job is a
// small function of the store, the fetcher and the clock; each stores its
// progress as it goes, so that a job cut off at any point (Ctrl-C, kill -9)
// is simply done again, or resumed, by the next run.
package crawl

import (
	"context"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/schedule"
	"corpus.blog/corpusbot/internal/store"
)

// Fetcher is what the jobs need of *fetch.Fetcher.
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) fetch.Result
	Robots(ctx context.Context, rawURL string) (fetch.RobotsEntry, error)
}

// Crawler holds what every job needs. Its zero value is not usable; fill
// every field but Log and Workers.
type Crawler struct {
	Store    store.Store
	Fetcher  Fetcher
	Clock    fetch.Clock
	Settings config.Settings
	Extract  Extractor    // page text extraction; nil: extract.Parse
	Log      *slog.Logger // default slog.Default()
	// Workers is how many sites are worked on at once (default 8); one
	// site's work is always done by one worker, in order.
	Workers int

	// Push keeps WebSub subscriptions (push*.go); nil: feeds are only
	// polled. CallbackBase is the public site's base URL
	// (https://corpus.blog), under which hubs reach
	// /websub/callback/<id>; "" : no subscription is made.
	Push         store.Push
	CallbackBase string

	robotsStatus sync.Map // origin -> last robots.txt status seen (from Observe)

	requests requestLog // Observe's records on their way to the store (requestlog.go)

	schedMu    sync.Mutex
	sched      schedule.Strategy // nil: the fixed rotation; set by calibrate
	calibrated time.Time
}

// Observe is the fetcher's Options.Observe: every request goes to the
// store's request log, in batches written behind the fetcher's back (see
// requestlog.go; Flush waits for them), and robots.txt statuses are kept
// for the origin records.
func (c *Crawler) Observe(rec fetch.Record) {
	if rec.Purpose == fetch.PurposeRobots && rec.Outcome != fetch.OutcomeRedirect {
		if u, err := url.Parse(rec.URL); err == nil {
			c.robotsStatus.Store(fetch.Origin(u), rec.Status)
		}
	}
	if c.requests.add(c.Store, c.log(), rec) {
		return
	}
	// After Close: stored at once.
	if err := c.Store.LogRequests(context.Background(), []fetch.Record{rec}); err != nil {
		c.log().Warn("request log write failed", "url", rec.URL, "err", err)
	}
}

func (c *Crawler) log() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.Default()
}

func (c *Crawler) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return 8
}

func (c *Crawler) agent() string { return c.Settings.ProductToken() }

func (c *Crawler) extractor() Extractor {
	if c.Extract != nil {
		return c.Extract
	}
	return DefaultExtractor
}
