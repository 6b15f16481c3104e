package crawl_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var discard = debugLog() // formats nothing: the scale tests log a line per site

func debugLog() *slog.Logger {
	if os.Getenv("CRAWL_DEBUG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// world is a crawler over a simulated web, on simulated time, with the
// private-address guard on.
type world struct {
	t     testing.TB
	web   *simweb.Web
	clock *simweb.Clock
	db    *store.DB
	c     *crawl.Crawler
	s     config.Settings
	mu    sync.Mutex
	recs  []model.RequestRecord
	// timeouts are the fetcher's (default: 5 s in all); rewire changes them.
	timeouts fetch.Timeouts
	fclock   fetch.Clock
}

func newWorld(t testing.TB, dbPath string) *world {
	t.Helper()
	return newWorldWith(t, dbPath, false, nil)
}

// newWorldWith is newWorld on the wall clock when wall is set, with the
// settings tweaked.
func newWorldWith(t testing.TB, dbPath string, wall bool, tweak func(*config.Settings)) *world {
	t.Helper()
	w := &world{t: t, s: worldSettings()}
	if tweak != nil {
		tweak(&w.s)
	}
	var clock fetch.Clock = fetch.RealClock{}
	if wall {
		w.web = simweb.New()
	} else {
		w.clock = simweb.NewClock(start)
		clock = w.clock
		w.web = simweb.New(simweb.WithClock(w.clock.Now))
	}
	t.Cleanup(w.web.Close)
	if dbPath == "" {
		dbPath = filepath.Join(t.TempDir(), "crawl.db")
	}
	db, err := sqlite.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.wire(db.DB, clock)
	return w
}

// newEventWorld is newWorld on an event clock (simweb.EventClock): many
// sites in flight at once take the simulated time the longest of them
// takes, as they would on the wall clock.
func newEventWorld(t testing.TB, tweak func(*config.Settings)) (*world, *simweb.EventClock) {
	t.Helper()
	w := &world{t: t, s: worldSettings()}
	if tweak != nil {
		tweak(&w.s)
	}
	clock := simweb.NewEventClock(start)
	t.Cleanup(clock.Close)
	w.web = simweb.New(simweb.WithClock(clock.Now))
	t.Cleanup(w.web.Close)
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w.wire(db.DB, clock)
	return w, clock
}

// newWorldOn is newWorld on simulated time over the given store.
func newWorldOn(t testing.TB, db *store.DB) *world {
	t.Helper()
	w := &world{t: t, s: worldSettings(), clock: simweb.NewClock(start)}
	w.web = simweb.New(simweb.WithClock(w.clock.Now))
	t.Cleanup(w.web.Close)
	w.wire(db, w.clock)
	return w
}

// worldSettings are the defaults on the seed's fixed rotation: the tests
// of day-by-day behaviour expect every feed read once a day (TestAdaptiveSchedule
// runs the adaptive default).
func worldSettings() config.Settings {
	s := config.Defaults()
	s.FeedSchedule = config.ScheduleFixed
	return s
}

// wire builds the crawler and its fetcher over db.
func (w *world) wire(db *store.DB, clock fetch.Clock) {
	t := w.t
	w.db, w.fclock = db, clock
	if w.timeouts == (fetch.Timeouts{}) {
		w.timeouts = fetch.Timeouts{Total: 5 * time.Second}
	}
	w.c = crawl.New(crawl.Config{Store: db, Clock: clock, Settings: w.s, Log: discard})
	t.Cleanup(func() { w.c.Close() }) // before the store's Close, registered earlier
	fo := w.fetchOptions(db, clock)
	f, err := fetch.New(fo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.CloseIdleConnections)
	w.c.Fetcher = f
}

// fetchOptions are the fetcher's options over db, as the app wires them.
func (w *world) fetchOptions(db *store.DB, clock fetch.Clock) fetch.Options {
	fo := fetch.Options{
		Settings: w.s, Clock: clock, Resolver: w.web.Resolver(), Dial: w.web.Dial, Proxy: fetch.NoProxy,
		TLS: w.web.ClientTLS(), Logger: discard, Refusals: db, OptedOut: db.OptedOut, Store: db,
		Robots: db,
		Observe: func(r model.RequestRecord) {
			w.mu.Lock()
			w.recs = append(w.recs, r)
			w.mu.Unlock()
			w.c.Observe(r)
		},
		Timeouts:  w.timeouts,
		SlowAfter: slowAfter(clock),
		Waits:     db, // as the app wires it
	}
	return fo
}

// slowAfter is the fetcher's SlowAfter for clock: on a stepping clock
// (simweb.Clock), where every sleep of any site moves the time of all, a
// request's duration is how far the others slept meanwhile, not its own,
// so no response counts as slow there (the slow rule is the fetcher's,
// tested in package fetch).
func slowAfter(clock fetch.Clock) time.Duration {
	if _, ok := clock.(*simweb.Clock); ok {
		return 1000 * time.Hour
	}
	return 0
}

// rewire builds the crawler and fetcher again with other timeouts.
func (w *world) rewire(t fetch.Timeouts) {
	w.timeouts = t
	w.wire(w.db, w.fclock)
}

func (w *world) clean() {
	w.t.Helper()
	for _, v := range w.web.Violations(w.s.UserAgent, w.s.ProductToken(), func(string) time.Duration { return w.s.MinGap }) {
		w.t.Error(v)
	}
}

func (w *world) post(u string) store.Post {
	w.t.Helper()
	p, err := w.db.Post(context.Background(), u)
	if err != nil {
		w.t.Fatalf("post %s: %v", u, err)
	}
	return p
}

// pageURIs lists the page requests (not robots, feeds, sitemaps) a host saw.
func pageURIs(web *simweb.Web, host string, pages map[string]bool) []string {
	var out []string
	for _, r := range web.RequestsTo(host) {
		if pages[r.URI] {
			out = append(out, r.URI)
		}
	}
	return out
}

const (
	htmlType = "text/html; charset=utf-8"
	rssType  = "application/rss+xml"
	atomType = "application/atom+xml"
	xmlType  = "application/xml"
)

func homepage(feeds ...string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Home</title>")
	for _, f := range feeds {
		fmt.Fprintf(&b, `<link rel="alternate" type="application/rss+xml" title="Feed" href="%s">`, f)
	}
	b.WriteString("</head><body><p>Welcome.</p></body></html>")
	return b.String()
}

func article(title, body string, extraHead string) string {
	return fmt.Sprintf(`<!doctype html><html><head><title>%s</title>%s</head><body><article><h1>%s</h1><p>%s</p>
<p>See <a href="https://elsewhere.example/cited">this</a>.</p></article></body></html>`, title, extraHead, title, strings.Repeat(body+" ", 40))
}

type item struct {
	link, title string
	date        time.Time
	full        bool
}

func rss(items []item) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Blog</title><link>http://x/</link>`)
	for _, it := range items {
		fmt.Fprintf(&b, "<item><title>%s</title><link>%s</link><pubDate>%s</pubDate>", it.title, it.link, it.date.Format(time.RFC1123Z))
		if it.full {
			fmt.Fprintf(&b, "<content:encoded><![CDATA[<p>%s</p>]]></content:encoded>", strings.Repeat("Full post text. ", 60))
		} else {
			b.WriteString("<description>A summary.</description>")
		}
		b.WriteString("</item>")
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

type smURL struct {
	loc     string
	lastmod time.Time
}

func urlset(urls []smURL) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>%s</lastmod></url>", u.loc, u.lastmod.Format(time.RFC3339))
	}
	b.WriteString("</urlset>")
	return b.String()
}
