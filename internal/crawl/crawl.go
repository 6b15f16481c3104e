// Package crawl is the crawler's jobs: discover a source, poll a feed, walk
// its catalogue, discover and read sitemaps, fetch a page. Each job is a
// small function of the store, the fetcher and the clock; each stores its
// progress as it goes, so that a job cut off at any point (Ctrl-C, kill -9)
// is simply done again, or resumed, by the next run.
package crawl

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/schedule"
	"corpus.blog/corpusbot/internal/store"
)

// Fetcher is what the jobs need of *fetch.Fetcher.
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) fetch.Result
	Robots(ctx context.Context, rawURL string) (fetch.RobotsEntry, error)
}

// Config is what a Crawler is made of (New). Store, Clock and Settings
// are required by every job that reaches them, Fetcher by every job that
// sends a request (it may be set after New: the fetcher's Observe is the
// Crawler's); the rest have defaults.
type Config struct {
	Store    *store.DB
	Fetcher  Fetcher
	Clock    fetch.Clock
	Settings config.Settings
	Extract  Extractor    // page text extraction; nil: DefaultExtractor
	Log      *slog.Logger // nil: slog.Default (logging.OrDefault)
	// Concurrency is how many sites are worked on at once; 0 takes
	// Settings.Concurrency (CONCURRENCY), at least 1. One site's work is
	// always done in order, by one goroutine.
	Concurrency int

	// Push keeps WebSub subscriptions (websub*.go); nil: feeds are only
	// polled. CallbackBase is the public site's base URL
	// (https://corpus.blog), under which hubs reach
	// /websub/callback/<id>; "" : no subscription is made.
	Push         store.Push
	CallbackBase string

	// Meter is told of sites taken up and let go, rounds over and retries
	// scheduled (meter.go); nil: nothing is told.
	Meter Meter
}

// New is a Crawler of cfg, its defaults applied once: the logger
// (logging.OrDefault), the extractor (DefaultExtractor), the sites worked
// on at once (Settings.Concurrency, at least 1) and the meter (none told).
func New(cfg Config) *Crawler {
	cfg.Log = logging.OrDefault(cfg.Log)
	if cfg.Extract == nil {
		cfg.Extract = DefaultExtractor
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = max(1, cfg.Settings.Concurrency)
	}
	if cfg.Meter == nil {
		cfg.Meter = noMeter{}
	}
	return &Crawler{Config: cfg, extracting: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// Crawler holds what every job needs: its Config, defaults applied, and
// the state its jobs share. Make one with New.
type Crawler struct {
	Config

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

	// extracting holds a slot per page being extracted: no more at once
	// than there are processors to do it (pagefetch.go).
	extracting chan struct{}

	schedMu    sync.Mutex
	sched      schedule.Strategy // nil: the fixed rotation; set by calibrate
	calibrated time.Time
}

func (c *Crawler) agent() string { return c.Settings.ProductToken() }
