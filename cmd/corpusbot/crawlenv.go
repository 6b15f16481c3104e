package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/metrics"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
)

// crawlFlags are the flags every crawl command takes: --config and --db,
// plus every setting on `run` (names nil) or the named ones.
func crawlFlags(fs *flags, names ...string) *string {
	configPath := configFlag(fs)
	if len(names) == 0 {
		config.RegisterFlags(fs.FlagSet)
	} else {
		config.RegisterFlags(fs.FlagSet, names...)
	}
	return configPath
}

// configFlag is --config, one flag with one help on every command that
// reads settings (the pure ones included: robots check reads USER_AGENT,
// feed parse BODY_MAX).
func configFlag(fs *flags) *string {
	return fs.String("config", "", "settings `file` (TOML); CORPUSBOT_* variables and setting flags take precedence over it")
}

// openStore opens the database the settings name (app.OpenStore), creating
// a SQLite file that does not exist yet: for the commands that fill one
// (sources add, run and its parts).
func openStore(ctx context.Context, s config.Settings) (*app.DB, error) {
	return app.OpenStore(ctx, s)
}

// openExistingStore is openStore for the commands that only read a database
// (export, sources retry, the batch commands): a SQLite file must exist already
// (sqliteExists). A PostgreSQL database is the operator's to create (a
// mistyped URL fails to connect rather than making one), so it is not
// checked.
func openExistingStore(ctx context.Context, s config.Settings) (*app.DB, error) {
	if !postgres.IsDSN(s.DB) {
		if err := sqliteExists(s.DB); err != nil {
			return nil, err
		}
	}
	return app.OpenStore(ctx, s)
}

// newCrawler wires the one fetcher and the crawler over db; progress goes
// to stderr as log lines (LOG_LEVEL, LOG_FORMAT). Close it before closing
// the store.
func newCrawler(env environment, db *app.DB, s config.Settings, m *metrics.Metrics) (*app.Crawl, error) {
	log, err := crawlLogger(env.stderr, s)
	if err != nil {
		return nil, err
	}
	return app.NewCrawl(db, app.Options{Settings: s, Log: log, Metrics: m})
}

// interruptible is a context that Ctrl-C or SIGTERM cancels, so that a
// command stops between two requests with everything done so far stored.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// crawlCommand is the shape of the batch commands (articles fetch,
// sitemaps discover and fetch): settings, the existing store (they work on
// sources already added, so a mistyped --db is refused rather than
// created empty), crawler, an interruptible context, then job.
func crawlCommand(env environment, configPath string, fs *flags, job func(ctx context.Context, c *crawl.Crawler) error) error {
	return crawlCommandServing(env, configPath, fs, "", openExistingStore, job)
}

// crawlCommandServing is crawlCommand with the store opened by open (run
// creates it: openStore) and the metrics and the health check served at
// metricsAddr while the job runs ("" serves nothing).
func crawlCommandServing(env environment, configPath string, fs *flags, metricsAddr string,
	open func(context.Context, config.Settings) (*app.DB, error), job func(ctx context.Context, c *crawl.Crawler) error) (err error) {
	s, err := loadSettings(env, configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	st, err := open(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	var m *metrics.Metrics
	if metricsAddr != "" {
		m = metrics.New()
	}
	c, err := newCrawler(env, st, s, m)
	if err != nil {
		return err
	}
	// Its error says what the crawl could not finish storing or archiving;
	// when the store itself failed the command, that error says it all
	// (one line), and what could not be stored after it is only logged.
	defer func() {
		cerr := c.Close()
		if cerr != nil && (errors.Is(err, store.ErrCannotWrite) || errors.Is(err, store.ErrUnavailable)) {
			c.Crawler.Log.Warn("not stored", "err", cerr)
			cerr = nil
		}
		err = errors.Join(err, cerr)
	}()
	if metricsAddr != "" {
		stopOps, err := serveOps(ctx, metricsAddr, opsHandler(m, st, nil), c.Crawler.Log)
		if err != nil {
			return err
		}
		defer stopOps()
	}
	if err := job(ctx, c.Crawler); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
