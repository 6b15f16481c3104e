// Package app wires corpusbot together once: the database the settings
// name, the one fetcher over it (with the cluster's shared politeness on
// PostgreSQL), the crawler, and the public site's options. `run`, `serve`,
// `export`, `sources` and the offline demo all start here, so a store, a
// fetcher or a crawler is never assembled twice.
package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/metrics"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/version"
	"corpus.blog/corpusbot/internal/warc"
	"corpus.blog/corpusbot/internal/web"
)

// DB is an open database, on either backend, and what its backend adds to
// the fetcher: on PostgreSQL, the site leases and robots.txt cache every
// worker shares.
type DB struct {
	*store.DB
	pg *postgres.DB
}

// OpenStore opens the database the settings name: PostgreSQL for a
// postgres:// or postgresql:// URL (a cluster of workers), else a SQLite
// file.
func OpenStore(ctx context.Context, s config.Settings) (*DB, error) {
	if postgres.IsDSN(s.DB) {
		db, err := postgres.Open(ctx, s.DB)
		if err != nil {
			return nil, err
		}
		db.SetWhere(postgres.Where(s.DB))
		return &DB{DB: db.DB, pg: db}, nil
	}
	db, err := sqlite.Open(ctx, s.DB)
	if err != nil {
		return nil, err
	}
	db.SetWhere(s.DB)
	return &DB{DB: db.DB}, nil
}

// Network replaces the fetcher's way to the internet (the offline demo's
// simulated web); the zero value is the real network.
type Network struct {
	Resolver fetch.Resolver
	Dial     fetch.DialFunc
	Proxy    func(*http.Request) (*url.URL, error)
	TLS      *tls.Config
}

// Options are the parts a caller chooses; the rest follows the settings.
type Options struct {
	Settings config.Settings
	Log      *slog.Logger // nil: slog.Default (logging.OrDefault)
	Clock    fetch.Clock  // nil: the real clock
	Network  Network
	// Observe, when set, sees every record of the fetcher before the
	// crawler logs it (the demo keeps its own account).
	Observe func(model.RequestRecord)
	// Concurrency overrides the setting when above zero.
	Concurrency int
	// Metrics, when set, counts every request (nil: none kept).
	Metrics *metrics.Metrics
	// SlowAfter overrides the fetcher's slow-response threshold when above
	// zero: a simulated clock that every sleeper moves at once
	// (simweb.Clock) cannot time a response, so its tests turn the rule off.
	SlowAfter time.Duration
}

// Crawl is the wired crawler over one database.
type Crawl struct {
	DB      *DB
	Fetcher *fetch.Fetcher
	Crawler *crawl.Crawler
	warc    *warc.Writer // nil without WARC_DIR
}

// NewCrawl wires the one fetcher and the crawler over db. Close it before
// closing db: it stores the request log's last records. With WARC_DIR set,
// every page fetched is also written there as WARC (see archivePages), and
// Close completes the last file.
func NewCrawl(db *DB, o Options) (*Crawl, error) {
	o.Log = logging.OrDefault(o.Log)
	db.DB.SetLogger(o.Log) // its warnings (a checkout not given back) in the command's format
	clock := o.Clock
	if clock == nil {
		clock = fetch.RealClock{}
	}
	c := crawl.New(crawl.Config{Store: db.DB, Clock: clock, Settings: o.Settings, Log: o.Log,
		CallbackBase: o.Settings.PublicURL, Push: db.DB, Concurrency: o.Concurrency})
	observe := func(r model.RequestRecord) {
		if o.Observe != nil {
			o.Observe(r)
		}
		o.Metrics.ObserveFetch(r)
		c.Observe(r)
	}
	meterCrawl(c, db, o.Metrics)
	o.Metrics.SampleWith(func(ctx context.Context) (metrics.Sample, error) {
		posts, due, err := db.Gauges(ctx, clock.Now(), store.DueSettings{FeedInterval: o.Settings.FeedInterval,
			DisallowedRecheck: o.Settings.DisallowedRecheck, SitemapInterval: o.Settings.SitemapInterval})
		return metrics.Sample{PostsByState: posts, DueByKind: due}, err
	})
	fo := fetch.Options{
		Settings: o.Settings, Clock: clock, Logger: o.Log, Observe: observe,
		Refusals: db.DB, Robots: db.DB,
		// No request is sent that the store cannot record, nor when it
		// cannot say whether the site opted out (fetch/storegate.go).
		OptedOut: db.DB.OptedOut, Store: db.DB, Waits: db.DB, SlowAfter: o.SlowAfter,
		Resolver: o.Network.Resolver, Dial: o.Network.Dial, Proxy: o.Network.Proxy, TLS: o.Network.TLS,
	}
	if db.pg != nil {
		// A cluster: politeness and robots.txt are kept in the database,
		// shared by every worker.
		fo.Lease = postgres.NewLease(db.pg.SQL(), clock, postgres.LeaseOptions{Log: o.Log})
		fo.RobotsHold = fetch.RobotsHold{Holds: db.pg}
	}
	var archive *warc.Writer
	if dir := o.Settings.PagesDir(); dir != "" {
		var err error
		archive, err = warc.Open(dir, warc.Options{
			Prefix: warcPrefix(), Now: clock.Now, Software: version.Get().String(), Log: o.Log,
		})
		if err != nil {
			return nil, fmt.Errorf("WARC_DIR: %w", err)
		}
		fo.Archive = archivePages(archive, o.Log)
	}
	f, err := fetch.New(fo)
	if err != nil {
		if archive != nil {
			_ = archive.Close() // nothing written yet: no file to complete
		}
		return nil, fmt.Errorf("fetcher: %w", err)
	}
	c.Fetcher = f
	return &Crawl{DB: db, Fetcher: f, Crawler: c, warc: archive}, nil
}

// archivePages writes every page the fetcher read to w: the pages of posts
// and the homepages read for discovery, not feeds, sitemaps or robots.txt,
// which the corpus keeps in its own form. A page fetched is written even
// when the crawl is being stopped (the context is only the fetch's), and a
// write that fails is logged, not fatal: the crawl is the corpus's, the
// archive a copy.
func archivePages(w *warc.Writer, log *slog.Logger) func(context.Context, fetch.ArchivedExchange) {
	return func(ctx context.Context, x fetch.ArchivedExchange) {
		if x.Purpose != model.PurposePage {
			return
		}
		err := w.Write(context.WithoutCancel(ctx), warc.Exchange{
			URL: x.URL, Method: x.Method, RequestHeader: x.RequestHeader,
			Status: x.Status, Proto: x.Proto, ResponseHeader: x.ResponseHeader, Body: x.Body,
			Fetched: x.Fetched, RemoteAddr: x.RemoteAddr,
		})
		if err != nil {
			log.Error("WARC record not written", "url", x.URL, "err", err)
		}
	}
}

// warcPrefix begins the WARC file names with the host and the process, as
// web archives name theirs, so that the workers of a cluster (or a run and
// a serve) writing into one directory never choose the same name.
func warcPrefix() string {
	prefix := "corpusbot"
	if host, err := os.Hostname(); err == nil {
		host = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
				return r
			}
			return '-'
		}, host)
		if host != "" {
			prefix += "-" + host
		}
	}
	return prefix + "-" + strconv.Itoa(os.Getpid())
}

// meterCrawl has the crawler and the store report what they do to m (sites
// in flight, rounds, retries, store write latency) and starts their label
// sets at zero; the fetcher's records reach m through Observe. Nothing
// with metrics off.
func meterCrawl(c *crawl.Crawler, db *DB, m *metrics.Metrics) {
	if m == nil {
		return
	}
	c.Meter = m
	m.KnownRetryKinds(crawl.RetryKinds()...)
	m.KnownStoreOps(store.WriteOps()...)
	db.SetWriteObserver(m.ObserveStoreWrite)
}

// Close stores the request log's last records, lets the fetcher's idle
// connections go and completes the WARC file being written; the database
// stays open. Pages that could not be archived fail it: the crawl stored
// them, but the archive the operator asked for lacks them.
func (c *Crawl) Close() error {
	err := c.Crawler.Close()
	c.Fetcher.CloseIdleConnections()
	if c.warc != nil {
		err = errors.Join(err, c.warc.Close())
		if n, first := c.warc.Failures(); n > 0 {
			err = errors.Join(err, fmt.Errorf("WARC_DIR: %d pages not archived; the first: %w", n, first))
		}
	}
	return err
}

// SiteOptions wires the public site to the database and to the crawl's one
// fetcher, which reads claim files and IndexNow key files (politely, like
// any request) and which the WebSub callbacks use to store pushed posts.
func (c *Crawl) SiteOptions(s config.Settings) web.Options {
	return web.Options{
		Data: c.DB.SiteData(), Settings: s, Resolver: net.DefaultResolver,
		ClaimFetcher: crawl.ClaimFiles{Fetcher: c.Fetcher, Max: web.MaxClaimFile},
		PublicURL:    s.PublicURL,
		WebSub:       c.Crawler, IndexNow: c.DB.DB, IndexNowFetcher: crawl.IndexNowKeys{Fetcher: c.Fetcher},
		Deliveries: c.DB.DB,
	}
}

// GCPercent is the garbage collector's target (GOGC) the crawler runs
// with unless GOGC is set. Its live heap is small and steady (the sites in
// flight, ≈ 100–200 MiB at the default CONCURRENCY), so Go's default of
// 100 collects it over and over for little: at 200, over 2,000 simulated
// sites, the collector's share of the CPU fell from 15% to 9% and the
// peak RSS rose by about a quarter (BenchmarkFarmThroughput).
const GCPercent = 200

// MemoryLimit is the soft limit on the Go runtime's memory
// (runtime/debug.SetMemoryLimit, GOMEMLIMIT) the crawler runs with unless
// GOMEMLIMIT is set. At GCPercent the heap may grow to three times what is
// live before a collection; near this limit the collector runs sooner
// instead, so a crawl's peak follows its live heap (the sites in flight,
// their bodies and parse trees) and not the collector's headroom. 700 MiB
// leaves room under 1 GiB for what Go does not count: SQLite's page cache
// and its statements, the binary, the threads' stacks. It is paid for in
// CPU once the live heap comes near it: the seed's 45,695 blogs at real
// page sizes peaked at 934 MiB instead of 1.6 GiB, with the collector
// taking about a sixth of the CPU more. A crawl with memory to spare, or
// at a CONCURRENCY far above the default, wants GOMEMLIMIT higher (or
// "off").
const MemoryLimit = 700 << 20

// TuneGC sets GCPercent, unless the environment sets GOGC, and
// MemoryLimit, unless it sets GOMEMLIMIT (either of which then rules, as
// always).
func TuneGC(lookupEnv func(string) (string, bool)) {
	if _, set := lookupEnv("GOGC"); !set {
		debug.SetGCPercent(GCPercent)
	}
	if _, set := lookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
