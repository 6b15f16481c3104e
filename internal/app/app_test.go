package app_test

import (
	"math"
	"path/filepath"
	"runtime/debug"
	"testing"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
)

// TestWiring opens the embedded default and wires the crawl and the site
// over it: the site's options reach the same database and the same fetcher.
func TestWiring(t *testing.T) {
	s := config.Defaults()
	s.DB = filepath.Join(t.TempDir(), "corpusbot.db")
	db, err := app.OpenStore(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := app.NewCrawl(db, app.Options{Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Crawler.Fetcher != c.Fetcher || c.Crawler.Store == nil {
		t.Fatalf("crawler not wired to the one fetcher and the store: %+v", c.Crawler)
	}
	o := c.SiteOptions(s)
	if o.Data == nil || o.IndexNow == nil || o.WebSub == nil || o.Deliveries == nil || o.ClaimFetcher == nil {
		t.Fatalf("site options incomplete: %+v", o)
	}
	if _, _, err := db.AddSource(t.Context(), "https://blog.example/", c.Crawler.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	page, err := o.Data.Sites(t.Context(), modelQuery())
	if err != nil || page.Total != 1 {
		t.Fatalf("the site does not see the source added through the store: %+v %v", page, err)
	}
}

func modelQuery() model.SitesQuery { return model.SitesQuery{Limit: 10} }

// The binary collects garbage at GCPercent and within MemoryLimit unless
// GOGC and GOMEMLIMIT say otherwise.
func TestTuneGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	wasLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(wasLimit)
	app.TuneGC(func(string) (string, bool) { return "", false })
	if got := debug.SetGCPercent(100); got != app.GCPercent {
		t.Errorf("GOGC unset: GC percent %d, want %d", got, app.GCPercent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != app.MemoryLimit {
		t.Errorf("GOMEMLIMIT unset: memory limit %d, want %d", got, app.MemoryLimit)
	}
	app.TuneGC(func(k string) (string, bool) { return "50", k == "GOGC" })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent changed to %d, want it left to GOGC", got)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	app.TuneGC(func(k string) (string, bool) { return "1GiB", k == "GOMEMLIMIT" })
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: memory limit changed to %d, want it left to GOMEMLIMIT", got)
	}
}
