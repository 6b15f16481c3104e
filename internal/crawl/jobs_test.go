package crawl_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

func addSource(t *testing.T, w *world, u string) {
	t.Helper()
	if _, _, err := w.db.AddSource(context.Background(), u, w.clock.Now()); err != nil {
		t.Fatal(err)
	}
}

// Pages: non-HTML skipped unread, a client-rendered shell marked shell, a
// page that answers 404 on re-fetch marked removed (its text kept).
func TestPageStates(t *testing.T) {
	w := newWorld(t, "")
	h := w.web.Host("pages.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	h.Put("/feed", rssType, rss([]item{{h.URL("/doc.pdf"), "PDF", day0, false}, {h.URL("/app"), "App", day0, false}, {h.URL("/gone"), "Gone", day0, false}}))
	h.Put("/doc.pdf", "application/pdf", "%PDF-1.4 ...")
	h.Put("/app", htmlType, `<html><head><title>App</title><script src="/bundle.js"></script></head><body><div id="root"></div><script>boot()</script></body></html>`)
	h.Put("/gone", htmlType, article("Gone", "soon gone", ""))
	addSource(t, w, "http://pages.example/")
	ctx := context.Background()
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	checkStates(t, w, map[string]string{"http://pages.example/doc.pdf": model.PostSkipped, "http://pages.example/app": model.PostShell,
		"http://pages.example/gone": model.PostIndexed})
	// The post is modified (its date advances in the feed) and its page is gone.
	h.Handle("/gone", simweb.Status(404))
	w.clock.Advance(25 * time.Hour)
	h.Put("/feed", rssType, rss([]item{{h.URL("/gone"), "Gone", day0.Add(time.Hour), false}}))
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if p := w.post("http://pages.example/gone"); p.State != model.PostRemoved || p.Text == "" {
		t.Errorf("gone page: state %s, text %d bytes", p.State, len(p.Text))
	}
	w.clean()
}

// The catalogue walk stops at CATALOGUE_MAX_PAGES (page one included),
// with the catalogue gap between its pages, and is never started again.
func TestCatalogueBounded(t *testing.T) {
	w := newWorldWith(t, "", false, func(s *config.Settings) { s.CatalogueMaxPages = 4 })
	h := w.web.Host("cat.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	for pg := 1; pg <= 10; pg++ {
		path := "/feed"
		if pg > 1 {
			path = fmt.Sprintf("/feed?paged=%d", pg)
		}
		h.Put(path, rssType, rss([]item{{h.URL(fmt.Sprintf("/p%d", pg)), "P", day0, true}}))
	}
	addSource(t, w, "http://cat.example/")
	ctx := context.Background()
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	var cat []string
	for _, r := range w.web.RequestsTo("cat.example") {
		if strings.Contains(r.URI, "paged=") {
			cat = append(cat, r.URI)
		}
	}
	if len(cat) != 3 {
		t.Fatalf("catalogue pages %v, want 3 (4 pages with page one)", cat)
	}
	for _, v := range w.web.Violations(w.s.UserAgent, w.s.ProductToken(), func(string) time.Duration { return w.s.MinGap }) {
		t.Error(v)
	}
	reqs := w.web.RequestsTo("cat.example")
	for i := 1; i < len(reqs); i++ {
		if strings.Contains(reqs[i].URI, "paged=") && reqs[i].Start.Sub(reqs[i-1].End) < w.s.CataloguePageDelay {
			t.Errorf("catalogue page %s after a gap of %v", reqs[i].URI, reqs[i].Start.Sub(reqs[i-1].End))
		}
	}
	w.clock.Advance(25 * time.Hour)
	w.web.Reset()
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range w.web.RequestsTo("cat.example") {
		if strings.Contains(r.URI, "paged=") {
			t.Errorf("finished walk started again: %s", r.URI)
		}
	}
}

// Discovery falls back to well-known paths and /blog, /news only when the
// homepage declares no feed; comment feeds are never taken.
func TestDiscoverFallbacks(t *testing.T) {
	w := newWorld(t, "")
	h := w.web.Host("news.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, "<html><head><title>No feeds</title></head><body>Hi</body></html>")
	h.Put("/news", htmlType, homepage("/news/feed.xml", "/comments/feed"))
	h.Put("/news/feed.xml", rssType, rss([]item{{h.URL("/n1"), "N1", day0, true}}))
	h.Put("/feed", htmlType, "<html><body>not a feed</body></html>")
	addSource(t, w, "http://news.example/")
	ctx := context.Background()
	if _, err := w.c.DiscoverSources(ctx, 10); err != nil {
		t.Fatal(err)
	}
	fs := feedsOf(t, w, "http://news.example/")
	if len(fs) != 1 || fs[0].URL != "http://news.example/news/feed.xml" {
		t.Fatalf("feeds %+v", fs)
	}
	// The homepage declared none, so the well-known paths were tried first.
	var uris []string
	for _, r := range w.web.RequestsTo("news.example") {
		uris = append(uris, r.URI)
	}
	if !strings.Contains(strings.Join(uris, " "), "/atom.xml") {
		t.Errorf("well-known paths not tried: %v", uris)
	}
	w.clean()
}

// Loop stops cleanly when its context is cancelled (Ctrl-C).
func TestLoopStops(t *testing.T) {
	w := newWorld(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.c.Loop(ctx, time.Hour) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("loop: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("loop did not stop")
	}
}

// A source whose robots.txt is unreachable is not judged feedless: its
// discovery is put off and done once robots.txt answers.
func TestDiscoverPostponedWhileUnreachable(t *testing.T) {
	w := newWorld(t, "")
	h := w.web.Host("down.example")
	h.RobotsStatus(503)
	h.Put("/", htmlType, homepage("/feed"))
	h.Put("/feed", rssType, rss([]item{{h.URL("/x"), "X", day0, true}}))
	addSource(t, w, "http://down.example/")
	ctx := context.Background()
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if fs := feedsOf(t, w, "http://down.example/"); len(fs) != 0 {
		t.Fatalf("feeds found while robots.txt unreachable: %+v", fs)
	}
	s, _, _ := w.db.AddSource(ctx, "http://down.example/", w.clock.Now())
	if !s.Discovered.IsZero() {
		t.Fatal("marked discovered while robots.txt unreachable")
	}
	h.Robots("User-agent: *\nAllow: /\n")
	w.clock.Advance(7 * time.Hour)
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if fs := feedsOf(t, w, "http://down.example/"); len(fs) != 1 {
		t.Fatalf("feeds after robots.txt came back: %+v", fs)
	}
	checkStates(t, w, map[string]string{"http://down.example/x": model.PostIndexed})
}
