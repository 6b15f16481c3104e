package crawl_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// One blog crawled on the simulated web, on simulated time, through the
// same wiring `corpusbot run --once` uses (package app): robots.txt first,
// the homepage for its feed, the feed, a catalogue page, the well-known
// sitemap paths, then each post's page.
func Example() {
	clock := simweb.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	web := simweb.New(simweb.WithClock(clock.Now))
	defer web.Close()
	blog := web.Host("blog.example")
	blog.Robots("User-agent: *\nAllow: /\n")
	blog.Put("/", "text/html", `<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>A blog</body></html>`)
	blog.Put("/feed.xml", "application/rss+xml", `<rss version="2.0"><channel><title>A blog</title>
		<item><title>First</title><link>http://blog.example/first</link></item>
		<item><title>Second</title><link>http://blog.example/second</link></item></channel></rss>`)
	for _, p := range []string{"/first", "/second"} {
		blog.Put(p, "text/html", `<html><body><article><p>`+p[1:]+` post, with a paragraph long enough to be kept as the article's text by the extractor.</p></article></body></html>`)
	}

	dir, _ := os.MkdirTemp("", "crawl-example")
	defer os.RemoveAll(dir)
	s := config.Defaults()
	s.DB = filepath.Join(dir, "corpus.db")
	ctx := context.Background()
	db, err := app.OpenStore(ctx, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	db.AddSource(ctx, "http://blog.example/", clock.Now())
	c, err := app.NewCrawl(db, app.Options{Settings: s, Clock: clock, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Network: app.Network{Resolver: web.Resolver(), Dial: web.Dial, Proxy: fetch.NoProxy, TLS: web.ClientTLS()}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.Crawler.Once(ctx); err != nil {
		fmt.Println(err)
	}
	c.Close()

	for _, r := range web.RequestsTo("blog.example") {
		fmt.Println(r.Status, r.URI)
	}
	db.EachPost(ctx, func(p store.Post) error {
		fmt.Println(p.URL, p.State)
		return nil
	})
	// Output:
	// 200 /robots.txt
	// 200 /
	// 200 /feed.xml
	// 200 /feed.xml?paged=2
	// 404 /sitemap.xml
	// 404 /sitemap_index.xml
	// 404 /sitemap-index.xml
	// 404 /wp-sitemap.xml
	// 404 /sitemap/sitemap.xml
	// 404 /sitemap.xml.gz
	// 404 /sitemap.txt
	// 404 /sitemaps/sitemap.xml
	// 200 /first
	// 200 /second
	// http://blog.example/first indexed
	// http://blog.example/second indexed
}
