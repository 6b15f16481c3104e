package main

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// vocabBlog is a blog whose crawl leaves its rows in many states: a feed
// robots.txt allows and one it does not, posts indexed, noindex, withheld
// by robots.txt, gone and failing, and sitemaps read, disallowed, failing
// and skipped for their name.
func vocabBlog(h *simweb.Host) {
	h.Robots("User-agent: *\nDisallow: /private/\n\n" +
		"Sitemap: " + h.URL("/sitemap.xml") + "\nSitemap: " + h.URL("/private/sitemap.xml") + "\n" +
		"Sitemap: " + h.URL("/broken-sitemap.xml") + "\nSitemap: " + h.URL("/category-sitemap.xml") + "\n")
	h.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>Vocab</title>
<link rel="alternate" type="application/rss+xml" href="/feed">
<link rel="alternate" type="application/atom+xml" href="/private/feed"></head><body><p>Hello.</p></body></html>`)
	item := func(path string) string {
		return `<item><title>` + path + `</title><link>` + h.URL(path) + `</link><pubDate>Sun, 01 Mar 2026 10:00:00 GMT</pubDate></item>`
	}
	h.Put("/feed", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>Vocab</title><link>`+h.URL("/")+`</link>`+
		item("/one")+item("/hidden")+item("/private/post")+item("/gone")+item("/broken")+`</channel></rss>`)
	body := `<p>` + strings.Repeat("The text of a post, long enough to be one. ", 40) + `</p>`
	h.Put("/one", "text/html; charset=utf-8", `<!doctype html><html><head><title>One</title></head><body><article><h1>One</h1>`+body+`</article></body></html>`)
	h.Put("/two", "text/html; charset=utf-8", `<!doctype html><html><head><title>Two</title></head><body><article><h1>Two</h1>`+body+`</article></body></html>`)
	h.Put("/hidden", "text/html; charset=utf-8", `<!doctype html><html><head><title>Hidden</title><meta name="robots" content="noindex"></head><body><article>`+body+`</article></body></html>`)
	h.Handle("/gone", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "Gone", http.StatusGone) }))
	h.Handle("/broken", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	}))
	h.Put("/sitemap.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<url><loc>`+h.URL("/two")+`</loc></url></urlset>`)
	h.Handle("/broken-sitemap.xml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	}))
	h.Put("/category-sitemap.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<url><loc>`+h.URL("/category/news/")+`</loc></url></urlset>`)
}

// TestStoredStatesAreModelStates crawls a blog that leaves its rows in many
// states and checks that every state, catalogue progress, sitemap route and
// text origin the store wrote is one of internal/model's constants: the
// words the store writes and the ones it (and the public site, and the
// export) reads are the same.
func TestStoredStatesAreModelStates(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "c.db")
	clock := simweb.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	web := simweb.New(simweb.WithClock(clock.Now))
	defer web.Close()
	h := web.Host("vocab.example")
	vocabBlog(h)

	s := config.Defaults()
	s.DB = dbPath
	c := newSimCrawl(t, web, clock, s, nil)
	c.add(h.URL("/"))
	c.once()
	c.polite()
	c.close()

	raw, err := sql.Open("sqlite", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, col := range []struct {
		query string
		model []string
		// least is what the crawl above must have written, so that the
		// check is not vacuous.
		least []string
	}{
		{`SELECT DISTINCT state FROM feeds`, model.FeedStates, []string{model.FeedActive, model.FeedDisallowed}},
		{`SELECT DISTINCT catalogue FROM feeds`, model.CatalogueStates, nil},
		{`SELECT DISTINCT state FROM sitemaps`, model.SitemapStates,
			[]string{model.SitemapActive, model.SitemapDisallowed, model.SitemapSkipped}},
		{`SELECT DISTINCT via FROM sitemaps`, []string{model.ViaRobots, model.ViaWellKnown}, []string{model.ViaRobots}},
		{`SELECT DISTINCT state FROM posts`, model.PostStates, []string{model.PostIndexed, model.PostNoindex, model.PostDisallowed, model.PostError}},
		{`SELECT DISTINCT prev_state FROM posts WHERE prev_state <> ''`, model.PostStates, nil},
		{`SELECT DISTINCT text_from FROM posts WHERE text_from <> ''`, []string{model.TextFromFeed, model.TextFromPage}, []string{model.TextFromPage}},
	} {
		rows, err := raw.Query(col.query)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		for _, v := range got {
			if !slices.Contains(col.model, v) {
				t.Errorf("%s: %q is not a model constant (%v)", col.query, v, col.model)
			}
		}
		for _, v := range col.least {
			if !slices.Contains(got, v) {
				t.Errorf("%s: %v, want %q among them (the crawl did not reach it)", col.query, got, v)
			}
		}
		t.Logf("%s: %v", col.query, got)
	}
}
