package crawl_test

import (
	"context"
	"fmt"
	"testing"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// rssWithLink is a feed of one post whose channel link is link ("" for
// none).
func rssWithLink(link, post string) string {
	l := ""
	if link != "" {
		l = "<link>" + link + "</link>"
	}
	return fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>%s
<item><title>P</title><link>%s</link><description>d</description></item></channel></rss>`, l, post)
}

// sourcesNow lists the stored sources.
func sourcesNow(t *testing.T, db *store.DB) []store.Source {
	t.Helper()
	var out []store.Source
	if err := db.EachSource(context.Background(), func(s store.Source) error { out = append(out, s); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFeedSource: a source added by a feed's URL is discovered from its
// feed, and stands for the blog the feed's channel link names on its own
// site; a link elsewhere, or none, leaves it under the feed's URL. Either
// way it holds its feed, read once, and no feed path is guessed.
func TestFeedSource(t *testing.T) {
	for _, c := range []struct {
		name     string
		feedHost string
		feedPath string
		link     string
		wantURL  string // the source's URL after the crawl
	}{
		{"link on its site", "home.example", "/feed/", "http://home.example/", "http://home.example/"},
		{"blog below the root", "paths.example", "/blog/feed.xml", "http://paths.example/blog/", "http://paths.example/blog/"},
		{"link on another site", "feeds.service.example", "/blogx", "http://blogx.example/", "http://feeds.service.example/blogx"},
		{"no link", "nolink.example", "/news.rss", "", "http://nolink.example/news.rss"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "")
			ctx := context.Background()
			h := w.web.Host(c.feedHost)
			h.Robots("User-agent: *\nAllow: /\n")
			feedURL := h.URL(c.feedPath)
			h.Put(c.feedPath, rssType, rssWithLink(c.link, h.URL("/p1")))
			h.Put("/p1", htmlType, "<html><body><p>post</p></body></html>")
			if _, _, err := w.db.AddSource(ctx, feedURL, w.clock.Now()); err != nil {
				t.Fatal(err)
			}
			if err := w.c.Once(ctx); err != nil {
				t.Fatal(err)
			}
			srcs := sourcesNow(t, w.db)
			if len(srcs) != 1 || srcs[0].URL != c.wantURL || srcs[0].Discovered.IsZero() {
				t.Fatalf("sources %+v, want one at %s, discovered", srcs, c.wantURL)
			}
			feeds, err := w.db.SourceFeeds(ctx, srcs[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(feeds) != 1 || feeds[0].URL != feedURL || feeds[0].State != model.FeedActive {
				t.Errorf("feeds %+v, want %s active", feeds, feedURL)
			}
			feedReads := 0
			for _, r := range w.web.RequestsTo(c.feedHost) {
				if r.URI == c.feedPath {
					feedReads++
				}
				for _, p := range crawl.WellKnownFeedPaths {
					if r.URI == p {
						t.Errorf("feed path %s guessed", p)
					}
				}
			}
			// The page fetch that found it is no page (closed unread),
			// then the feed's first read.
			if feedReads != 2 {
				t.Errorf("feed asked %d times, want 2 (as a page, then as its first read)", feedReads)
			}
			if len(w.web.RequestsTo("blogx.example")) != 0 {
				t.Error("the other site named by the channel link was asked")
			}
		})
	}
}

// TestFeedSourceVariantOfHomepagesFeed: the homepage's source found its
// feed at /feed/; a source added later by /feed (no slash: a variant the
// site redirects) is merged into it, and the blog keeps one feed.
func TestFeedSourceVariantOfHomepagesFeed(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	h := w.web.Host("var.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, `<html><head><link rel="alternate" type="application/rss+xml" href="/feed/"></head><body>blog</body></html>`)
	h.Put("/feed/", rssType, rssWithLink("http://var.example/", h.URL("/p1")))
	h.Put("/feed", rssType, rssWithLink("http://var.example/", h.URL("/p1")))
	h.Put("/p1", htmlType, "<html><body><p>post</p></body></html>")
	home, _, err := w.db.AddSource(ctx, h.URL("/"), w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.db.AddSource(ctx, h.URL("/feed"), w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	srcs := sourcesNow(t, w.db)
	if len(srcs) != 1 || srcs[0].ID != home.ID {
		t.Fatalf("sources %+v, want only the homepage's (%d)", srcs, home.ID)
	}
	feeds, err := w.db.SourceFeeds(ctx, home.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(feeds) != 1 || feeds[0].URL != h.URL("/feed/") {
		t.Errorf("feeds %+v, want the one at /feed/", feeds)
	}
}
