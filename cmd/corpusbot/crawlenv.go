package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
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

// openStore opens the database the settings name (app.OpenStore).
func openStore(ctx context.Context, s config.Settings) (*app.DB, error) {
	return app.OpenStore(ctx, s)
}

// newCrawler wires the one fetcher and the crawler over db; progress goes
// to stderr as log lines. Close it before closing the store.
func newCrawler(env environment, db *app.DB, s config.Settings) (*app.Crawl, error) {
	return app.NewCrawl(db, app.Options{Settings: s, Log: crawlLogger(env.stderr)})
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
	c, err := newCrawler(env, st, s)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := job(ctx, c.Crawler); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
