package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// crawlFlags are the flags every crawl command takes: --config and --db,
// plus every setting on `run` (names nil) or the named ones.
func crawlFlags(fs *flags, names ...string) *string {
	configPath := fs.String("config", "", "settings file (TOML)")
	if len(names) == 0 {
		config.RegisterFlags(fs.FlagSet)
	} else {
		config.RegisterFlags(fs.FlagSet, names...)
	}
	return configPath
}

// openStore opens the database the settings name: PostgreSQL for a
// postgres:// or postgresql:// URL (a cluster of workers), else a SQLite file.
func openStore(ctx context.Context, s config.Settings) (store.Store, error) {
	if postgres.IsDSN(s.DB) {
		db, err := postgres.Open(ctx, s.DB)
		if err != nil {
			return nil, err
		}
		return db, nil
	}
	db, err := sqlite.Open(ctx, s.DB)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// newCrawler wires the store, the one fetcher and the crawler; progress
// goes to stderr as log lines. The closer stores the request log's last
// records: call it before closing the store.
func newCrawler(env environment, st store.Store, s config.Settings) (*crawl.Crawler, func(), error) {
	log := crawlLogger(env.stderr)
	c := &crawl.Crawler{Store: st, Clock: fetch.RealClock{}, Settings: s, Log: log, CallbackBase: s.PublicURL}
	if p, ok := st.(store.Push); ok {
		c.Push = p // WebSub, when PUBLIC_URL says where hubs call back
	}
	o := fetch.Options{
		Settings: s, Clock: c.Clock, Logger: log, Observe: c.Observe,
		Refusals: store.NewRefusals(st, log), Robots: store.NewRobotsCache(st, log),
		OptedOut: optedOut(st, log),
	}
	if pg, ok := st.(*postgres.DB); ok {
		// A cluster: politeness and robots.txt are kept in the database,
		// shared by every worker.
		o.Lease = postgres.NewLease(pg.SQL(), c.Clock, postgres.LeaseOptions{Log: log})
		o.Robots = postgres.NewRobotsCache(pg, c.Clock, log)
	}
	f, err := fetch.New(o)
	if err != nil {
		return nil, nil, fmt.Errorf("fetcher: %w", err)
	}
	c.Fetcher = f
	return c, func() { c.Close(); f.CloseIdleConnections() }, nil
}

// interruptible is a context that Ctrl-C or SIGTERM cancels, so that a
// command stops between two requests with everything done so far stored.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// crawlCommand is the shape of every crawl command but `sources add`:
// settings, store, crawler, an interruptible context, then job.
func crawlCommand(env environment, configPath string, fs *flags, job func(ctx context.Context, c *crawl.Crawler) error) error {
	s, err := loadSettings(env, configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	st, err := openStore(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	c, closeCrawler, err := newCrawler(env, st, s)
	if err != nil {
		return err
	}
	defer closeCrawler()
	if err := job(ctx, c); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// optedOut is the fetcher's opt-out check over the store. It fails closed:
// when the store cannot say, nothing is sent.
func optedOut(st store.Store, log *slog.Logger) func(context.Context, string) bool {
	return func(ctx context.Context, site string) bool {
		out, err := st.OptedOut(ctx, site)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("opt-out check failed: nothing sent to the site", "site", site, "err", err)
			}
			return true
		}
		return out
	}
}
