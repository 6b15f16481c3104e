package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/demo"
	"corpus.blog/corpusbot/internal/web"
)

func demoCmd(env environment, args []string) error {
	fs := newFlags("demo", "demo [--db FILE] [--days N] [--scale X] [--serve ADDR]\n\n"+
		"Crawls a simulated web of a few dozen blogs (robots.txt variants, RSS, Atom and JSON feeds, paged\n"+
		"catalogues, sitemaps, client-rendered pages, noindex pages, a site that refuses us) with the real\n"+
		"crawler on a fresh SQLite file, for N simulated days, then with a naive crawler that walks every\n"+
		"link, and prints what each cost the sites. Needs no network: everything runs in-process on\n"+
		"loopback. The database is a temporary file removed at exit unless --db names one (which must not\n"+
		"exist yet). --serve then serves the public site over the result.")
	dbPath := fs.String("db", "", "SQLite file to create and keep (default: a temporary file, removed at exit)")
	days := fs.Int("days", 2, "simulated days to crawl")
	scale := fs.Float64("scale", 1, "multiply the blogs' post counts (the population's size)")
	serve := fs.String("serve", "", "after the report, serve the public site over the result at ADDR (host:port)")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	switch {
	case len(positional) != 0:
		return usageError("demo takes no arguments (see --help)")
	case *days < 1 || *days > 60:
		return usageError("--days %d: want 1 to 60", *days)
	case *scale <= 0 || *scale > 20:
		return usageError("--scale %g: want more than 0, at most 20", *scale)
	}
	// The address is taken before the crawl, so that a port in use is said
	// at once rather than after the whole demo.
	var ln net.Listener
	if *serve != "" {
		if ln, err = net.Listen("tcp", *serve); err != nil {
			return fmt.Errorf("--serve %s: %w", *serve, err)
		}
		defer ln.Close()
	}
	path := *dbPath
	if path == "" {
		dir, err := os.MkdirTemp("", "corpusbot-demo-")
		if err != nil {
			return fmt.Errorf("temporary directory: %w", err)
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "demo.db")
	}
	ctx, stop := interruptible()
	defer stop()
	rep, err := demo.Run(ctx, demo.Options{
		DB: path, Days: *days, Specs: demo.DemoSpecs(*scale),
		Log: slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	if err != nil {
		return err
	}
	if err := rep.Write(env.stdout); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if *dbPath == "" {
		fmt.Fprintln(env.stdout, "(The database was a temporary file; --db FILE keeps it for `export` and `serve`.)")
	}
	if ln != nil {
		return serveDemo(ctx, env, path, ln)
	}
	return nil
}

// serveDemo serves the public site over the demo's database on ln until
// ctx ends, so that the demo's coverage, sources and request logs can be
// browsed.
func serveDemo(ctx context.Context, env environment, dbPath string, ln net.Listener) error {
	s := config.Defaults()
	s.DB = dbPath
	return runSite(ctx, env, s, func() (net.Listener, error) { return ln, nil }, func(*web.Options) {}, func(_ *slog.Logger, a net.Addr) {
		fmt.Fprintf(env.stdout, "The public site over the demo's crawl: http://%s/ (Ctrl-C stops it)\n", a)
	})
}
