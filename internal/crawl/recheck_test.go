package crawl_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
)

// A post removed from a child sitemap whose entry in the index did not
// change (WordPress and Yoast date a child by its newest post, so a
// removal leaves the index byte-identical) is seen within SITEMAP_RECHECK:
// the child is read again on its own, conditionally, though the index
// answers 304.
func TestRemovalBehindQuietIndex(t *testing.T) {
	w := newWorldWith(t, "", false, func(s *config.Settings) {
		s.SitemapInterval, s.SitemapRecheck = 24*time.Hour, 7*24*time.Hour
	})
	h := w.web.Host("quiet.example")
	h.Robots("User-agent: *\nAllow: /\nSitemap: http://quiet.example/sitemap_index.xml\n")
	h.Put("/", htmlType, homepage("/feed"))
	urls := []smURL{{h.URL("/p1"), day0}, {h.URL("/p2"), day0}, {h.URL("/p3"), day0}}
	h.Put("/feed", rssType, rss([]item{{urls[0].loc, "One", day0, false}}))
	for _, u := range urls {
		h.Put(u.loc[len("http://quiet.example"):], htmlType, article("A post", "text of a post", ""))
	}
	newest := day0
	h.Put("/sitemap_index.xml", "application/xml", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<sitemap><loc>`+h.URL("/post-sitemap.xml")+`</loc><lastmod>`+newest.Format(time.RFC3339)+`</lastmod></sitemap></sitemapindex>`)
	child := h.Put("/post-sitemap.xml", "application/xml", urlset(urls))
	ctx := context.Background()
	if _, _, err := w.db.AddSource(ctx, h.URL("/"), w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if p := w.post(urls[2].loc); p.State != model.PostIndexed {
		t.Fatalf("day 0: p3 %s", p.State)
	}
	// p3 is removed; p2 was the newest, so the index stays as it was.
	child.Update(urlset(urls[:2]), w.clock.Now())
	childReads := func() int {
		n := 0
		for _, q := range w.web.RequestsTo("quiet.example") {
			if q.URI == "/post-sitemap.xml" {
				n++
			}
		}
		return n
	}
	read := childReads()
	for day := 1; day <= 8; day++ {
		w.clock.Advance(24 * time.Hour)
		if err := w.c.Once(ctx); err != nil {
			t.Fatal(err)
		}
		p := w.post(urls[2].loc)
		switch {
		case day < 7 && p.State != model.PostIndexed:
			t.Errorf("day %d: p3 %s before SITEMAP_RECHECK (the child was not due)", day, p.State)
		case day >= 7 && p.State != model.PostRemoved:
			t.Errorf("day %d: p3 %s, want removed within SITEMAP_RECHECK", day, p.State)
		}
		if day < 7 && childReads() != read {
			t.Errorf("day %d: the child was read again before SITEMAP_RECHECK", day)
		}
	}
	// Once more a week on: nothing changed, so the recheck costs a 304.
	w.clock.Advance(7 * 24 * time.Hour)
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	full, notModified := child.Counts()
	if full != 2 || notModified != 1 {
		t.Errorf("child served %d times whole, %d times 304; want 2 and 1", full, notModified)
	}
	if p := w.post(urls[1].loc); p.State != model.PostIndexed {
		t.Errorf("p2 %s", p.State)
	}
	w.clean()
}
