package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/internal/store"
)

// bot is the real crawler, wired as `corpusbot run` wires it (the one
// fetcher, the SQLite store, robots.txt and the refusal list kept in the
// store, the private-address guard on), on its own simulated web and clock.
type bot struct {
	pop   *Population
	web   *simweb.Web
	clock *simweb.Clock
	db    *app.DB
	st    *store.DB
	wired *app.Crawl
	c     *crawl.Crawler
	s     config.Settings

	mu   sync.Mutex
	recs []model.RequestRecord // the fetcher's own account, every request it made or declined
}

// newBot opens a fresh SQLite file at dbPath (which must not exist yet) and
// serves the population on a new simulated web.
func newBot(ctx context.Context, pop *Population, dbPath string, log *slog.Logger) (*bot, error) {
	if _, err := os.Stat(dbPath); err == nil {
		return nil, fmt.Errorf("demo database %s already exists: the demo starts from an empty one", dbPath)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("demo database %s: %w", dbPath, err)
	}
	b := &bot{pop: pop, clock: simweb.NewClock(DayStart(1)), s: config.Defaults()}
	b.s.DB = dbPath
	b.web = simweb.New(simweb.WithClock(b.clock.Now))
	pop.Serve(b.web)
	db, err := app.OpenStore(ctx, b.s)
	if err != nil {
		b.web.Close()
		return nil, fmt.Errorf("demo database: %w", err)
	}
	b.db, b.st = db, db.DB
	// One worker: the simulated clock is shared, and with several workers one
	// site's pause would move time under another site's request, which the
	// fetcher would then measure as a slow response and back off from. One
	// worker keeps simulated time honest and the run deterministic; the
	// politeness rules are the same either way.
	b.wired, err = app.NewCrawl(db, app.Options{Settings: b.s, Log: log, Clock: b.clock, Concurrency: 1,
		Network: app.Network{Resolver: b.web.Resolver(), Dial: b.web.Dial, Proxy: fetch.NoProxy, TLS: b.web.ClientTLS()},
		Observe: b.record})
	if err != nil {
		b.close()
		return nil, fmt.Errorf("demo crawler: %w", err)
	}
	b.c = b.wired.Crawler
	for _, u := range pop.Homepages() {
		if _, _, err := db.AddSource(ctx, u, b.clock.Now()); err != nil {
			b.close()
			return nil, fmt.Errorf("add source %s: %w", u, err)
		}
	}
	return b, nil
}

// record keeps the fetcher's own account of a request (the crawler logs
// it next).
func (b *bot) record(r model.RequestRecord) {
	b.mu.Lock()
	b.recs = append(b.recs, r)
	b.mu.Unlock()
}

func (b *bot) close() {
	if b.wired != nil {
		b.wired.Close() // the request log's last records, before the store closes
	}
	if b.st != nil {
		b.st.Close()
	}
	b.web.Close()
}

// runDay is day d of the scheduler: `run` every hour of the day, as the
// real one runs (RUN_INTERVAL), each round doing all the work then due. It
// returns the day's requests as the sites saw them and as the fetcher
// recorded them.
func (b *bot) runDay(ctx context.Context, d int) ([]simweb.Request, []model.RequestRecord, error) {
	before := len(b.web.Requests())
	b.mu.Lock()
	recsBefore := len(b.recs)
	b.mu.Unlock()
	for t := DayStart(d); t.Before(DayStart(d + 1)); t = t.Add(b.s.RunInterval) {
		if now := b.clock.Now(); now.Before(t) {
			b.clock.Advance(t.Sub(now))
		}
		if err := b.c.Once(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			// A job that failed is logged and stays due, as in `run`.
			b.c.Log.Debug("run round had failures", "day", d, "err", err)
		}
	}
	b.mu.Lock()
	recs := append([]model.RequestRecord(nil), b.recs[recsBefore:]...)
	b.mu.Unlock()
	return b.web.Requests()[before:], recs, nil
}

// violations is the server side's verdict on every request of the run.
func (b *bot) violations() []string {
	gaps := map[string]time.Duration{}
	for _, bl := range b.pop.Blogs {
		if bl.Robots == farm.RobotsCrawlDelay {
			gaps[bl.Host] = farm.CrawlDelay
		}
	}
	return b.web.Violations(b.s.UserAgent, b.s.ProductToken(), func(site string) time.Duration {
		return max(b.s.MinGap, gaps[site])
	})
}
