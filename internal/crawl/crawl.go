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
	"sync/atomic"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/schedule"
	"corpus.blog/corpusbot/internal/store"
)

// Fetcher is what the jobs need of *fetch.Fetcher.
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) fetch.Result
	Robots(ctx context.Context, rawURL string) (fetch.RobotsEntry, error)
}

// Crawler holds what every job needs. Its zero value is not usable; fill
// every field but Log and Concurrency.
type Crawler struct {
	Store    *store.DB
	Fetcher  Fetcher
	Clock    fetch.Clock
	Settings config.Settings
	Extract  Extractor    // page text extraction; nil: extract.Parse
	Log      *slog.Logger // nil: slog.Default (logging.OrDefault)
	// Concurrency is how many sites are worked on at once; 0 takes
	// Settings.Concurrency (CONCURRENCY). One site's work is always done
	// in order, by one goroutine.
	Concurrency int

	// Push keeps WebSub subscriptions (push*.go); nil: feeds are only
	// polled. CallbackBase is the public site's base URL
	// (https://corpus.blog), under which hubs reach
	// /websub/callback/<id>; "" : no subscription is made.
	Push         store.Push
	CallbackBase string

	// Meter is told of sites taken up and let go, rounds over and retries
	// scheduled (meter.go); nil: nothing is told.
	Meter Meter

	robotsStatus sync.Map                 // origin -> last robots.txt status seen (from Observe)
	robotsWhy    sync.Map                 // origin -> why its last robots.txt request failed (from Observe)
	progress     atomic.Pointer[Progress] // the round in progress, counting requests
	cadence      time.Duration            // Loop's: a round's summary names the next one
	looping      bool                     // Loop's: a store that cannot write is waited for (storefault.go)
	storeWatch   sync.Once                // the store's failed writes are counted (watchStore)

	requests requestLog // Observe's records on their way to the store (requestlog.go)
	// requestStore, when set, stores the request log instead of Store
	// (the request log's tests: a disk that hangs, is slow or fails).
	requestStore requestLogStore
	// checkouts, when set, checks sites out instead of Store (a test's
	// checkouts that take a while on the clock).
	checkouts siteCheckouts

	schedMu    sync.Mutex
	sched      schedule.Strategy // nil: the fixed rotation; set by calibrate
	calibrated time.Time
}

// Observe is the fetcher's Options.Observe: every request goes to the
// store's request log, in batches written behind the fetcher's back (see
// requestlog.go; Flush waits for them), and robots.txt statuses are kept
// for the origin records.
func (c *Crawler) Observe(rec model.RequestRecord) {
	c.progress.Load().observe(rec)
	if rec.Purpose == model.PurposeRobots && rec.Outcome != model.OutcomeRedirect {
		if u, err := url.Parse(rec.URL); err == nil {
			c.robotsStatus.Store(model.OriginOf(u), rec.Status)
			if rec.Status == 0 || rec.Status >= 500 || rec.Status == 429 {
				c.robotsWhy.Store(model.OriginOf(u), fetch.RecordReason(rec))
			} else {
				c.robotsWhy.Delete(model.OriginOf(u))
			}
		}
	}
	if c.requests.add(c.requestSink(), c.log(), rec) {
		return
	}
	// After Close: stored at once.
	if err := c.requestSink().LogRequests(context.Background(), []model.RequestRecord{rec}); err != nil {
		c.log().Warn("request log write failed", "url", rec.URL, "err", err)
	}
}

// requestSink is where the request log is stored: Store, unless a test
// set requestStore.
func (c *Crawler) requestSink() requestLogStore {
	if c.requestStore != nil {
		return c.requestStore
	}
	return c.Store
}

// siteCheckouts is what the frontier's checkouts of sites ask of the
// store (frontier.go).
type siteCheckouts interface {
	CheckOutSites(ctx context.Context, round string, sites []string) ([]store.Checkout, error)
}

// checkoutStore checks the frontier's sites out: Store, unless a test set
// checkouts.
func (c *Crawler) checkoutStore() siteCheckouts {
	if c.checkouts != nil {
		return c.checkouts
	}
	return c.Store
}

// log is c.Log under the project's one policy for a missing logger. A
// Crawler is built as a literal, with no constructor to default it once,
// so the policy is applied where it is read.
func (c *Crawler) log() *slog.Logger { return logging.OrDefault(c.Log) }

func (c *Crawler) concurrency() int {
	if c.Concurrency > 0 {
		return c.Concurrency
	}
	return max(1, c.Settings.Concurrency)
}

func (c *Crawler) agent() string { return c.Settings.ProductToken() }

func (c *Crawler) extractor() Extractor {
	if c.Extract != nil {
		return c.Extract
	}
	return DefaultExtractor
}
