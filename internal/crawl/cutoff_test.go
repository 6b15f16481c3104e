package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// cutSite is one blog with every kind of read a stop can fall on:
// robots.txt naming a sitemap index, a homepage naming the feed, the feed
// (three posts' summaries) with a catalogue page behind it (two more), the
// index and its child listing the five posts, and the posts' pages. It
// returns the child sitemap's and index's resources, to move the posts'
// lastmods later.
func cutSite(w *world) (child, index *simweb.Resource) {
	h := w.web.Host("cut.example")
	h.Robots("User-agent: *\nAllow: /\nSitemap: " + h.URL("/sitemap_index.xml") + "\n")
	h.Put("/", htmlType, homepage("/feed"))
	var items []item
	for i := 1; i <= 5; i++ {
		items = append(items, item{h.URL(fmt.Sprintf("/posts/%d", i)), fmt.Sprintf("Post %d", i), day0.Add(-time.Duration(i) * time.Hour), false})
		h.Put(fmt.Sprintf("/posts/%d", i), htmlType, article(fmt.Sprintf("Post %d", i), "text of a post", ""))
	}
	h.Put("/feed", rssType, rss(items[:3]))
	h.Put("/feed?paged=2", rssType, rss(items[3:]))
	h.Handle("/feed?paged=3", http.NotFoundHandler())
	child = h.Put("/post-sitemap.xml", xmlType, cutURLSet(h, day0))
	index = h.Put("/sitemap_index.xml", xmlType, cutIndex(h, day0))
	return child, index
}

func cutURLSet(h *simweb.Host, lastmod time.Time) string {
	var urls []smURL
	for i := 1; i <= 5; i++ {
		urls = append(urls, smURL{h.URL(fmt.Sprintf("/posts/%d", i)), lastmod})
	}
	return urlset(urls)
}

func cutIndex(h *simweb.Host, lastmod time.Time) string {
	return `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
		`<sitemap><loc>` + h.URL("/post-sitemap.xml") + `</loc><lastmod>` + lastmod.Format(time.RFC3339) + `</lastmod></sitemap></sitemapindex>`
}

// A crawl stopped (its context cancelled) right after a response has come
// in keeps what that response taught: the next process, a day later, when
// everything is due again (robots.txt, the feed, the sitemaps, and the
// pages whose lastmod advanced), asks every URL the stopped one had read
// whole conditionally, or not at all (the homepage, whose discovery is
// done; the catalogue page, whose walk went on). And the stopped process
// sent nothing after the response it was stopped on.
func TestStopKeepsWhatWasRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		uri  func(string) bool
	}{
		{"robots.txt", func(u string) bool { return u == "/robots.txt" }},
		{"homepage", func(u string) bool { return u == "/" }},
		{"feed", func(u string) bool { return u == "/feed" }},
		{"catalogue page", func(u string) bool { return u == "/feed?paged=2" }},
		{"sitemap index", func(u string) bool { return u == "/sitemap_index.xml" }},
		{"sitemap", func(u string) bool { return u == "/post-sitemap.xml" }},
		{"page", func(u string) bool { return strings.HasPrefix(u, "/posts/") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "")
			child, index := cutSite(w)
			addSource(t, w, "http://cut.example/")

			// The first process, stopped as the response it waits for comes in.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fo := w.fetchOptions(w.db, w.clock)
			observe := fo.Observe
			cut := ""
			fo.Observe = func(r model.RequestRecord) {
				observe(r)
				if u, err := url.Parse(r.URL); err == nil && r.Status == http.StatusOK && cut == "" && tc.uri(u.RequestURI()) {
					cut = u.RequestURI()
					cancel()
				}
			}
			f, err := fetch.New(fo)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(f.CloseIdleConnections)
			w.c.Fetcher = f
			if err := w.c.Once(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("the first run ended with %v, not stopped", err)
			}
			first := w.web.Requests()
			if cut == "" {
				t.Fatalf("no response to stop on; requests: %v", uris(first))
			}
			if last := first[len(first)-1]; last.URI != cut {
				t.Errorf("the stopped process asked %s after the response it was stopped on (%s): %v", last.URI, cut, uris(first))
			}

			// A day later, a new process (nothing in memory); the posts'
			// lastmods advanced, so that their pages are due again too.
			w.clock.Advance(25 * time.Hour)
			h := w.web.Host("cut.example")
			child.Update(cutURLSet(h, day0.Add(24*time.Hour)), w.clock.Now())
			index.Update(cutIndex(h, day0.Add(24*time.Hour)), w.clock.Now())
			w.rewire(w.timeouts)
			if err := w.c.Once(context.Background()); err != nil {
				t.Fatal(err)
			}
			read := map[string]bool{}
			for _, q := range first {
				if q.Status == http.StatusOK {
					read[q.URI] = true
				}
			}
			again, blind := 0, 0
			for _, q := range w.web.Requests()[len(first):] {
				if !read[q.URI] {
					continue
				}
				again++
				if q.Header.Get("If-None-Match") == "" && q.Header.Get("If-Modified-Since") == "" {
					blind++
					t.Errorf("stopped after %s: %s, read whole before the stop, asked again unconditionally", cut, q.URI)
				}
			}
			t.Logf("stopped after %s (request %d); the next process asked %d of the URLs read before again, %d unconditionally",
				cut, len(first), again, blind)
			w.clean()
		})
	}
}

func uris(reqs []simweb.Request) []string {
	var out []string
	for _, q := range reqs {
		out = append(out, q.URI)
	}
	return out
}
