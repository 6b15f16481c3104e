package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// identBlog is the blog of many spellings: its homepage is
// http://ident.example/, its feed moved for good (301) from
// http://ident.example/feed to https://www.ident.example/feed and lists
// https://www. URLs; robots.txt names a Yoast-style sitemap index whose
// post sitemap lists http:// bare-host URLs with a trailing slash and utm_
// parameters, beside category and author sitemaps; every page, under any
// spelling, carries a canonical link to https://www.ident.example/pN.
func identBlog(web *simweb.Web, posts int) {
	bare, www := web.Host("ident.example"), web.Host("www.ident.example")
	robots := "User-agent: *\nAllow: /\nSitemap: http://ident.example/sitemap_index.xml\n"
	bare.Robots(robots)
	www.Robots(robots)
	bare.Put("/", htmlType, homepage("/feed"))
	bare.Handle("/feed", simweb.Redirect(http.StatusMovedPermanently, "https://www.ident.example/feed"))
	var items []item
	var sm []smURL
	for n := 1; n <= posts; n++ {
		canonical := fmt.Sprintf("https://www.ident.example/p%d", n)
		items = append(items, item{canonical, fmt.Sprintf("Post %d", n), day0.Add(-time.Duration(n) * time.Hour), false})
		sm = append(sm, smURL{fmt.Sprintf("http://ident.example/p%d/?utm_source=sitemap&utm_medium=xml", n), day0})
		page := simweb.NewResource(htmlType, article(fmt.Sprintf("Post %d", n), "one post, many spellings",
			`<link rel="canonical" href="`+canonical+`">`))
		www.Handle(fmt.Sprintf("/p%d", n), page)
		bare.Handle(fmt.Sprintf("/p%d/", n), page)
		www.Handle(fmt.Sprintf("/p%d/", n), page)
		bare.Handle(fmt.Sprintf("/p%d", n), page)
	}
	www.Put("/feed", rssType, rss(items))
	bare.Put("/sitemap_index.xml", xmlType, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<sitemap><loc>http://ident.example/post-sitemap.xml</loc><lastmod>2026-01-01T00:00:00Z</lastmod></sitemap>`+
		`<sitemap><loc>http://ident.example/category-sitemap.xml</loc></sitemap>`+
		`<sitemap><loc>http://ident.example/author-sitemap.xml</loc></sitemap></sitemapindex>`)
	bare.Put("/post-sitemap.xml", xmlType, urlset(sm))
	bare.Put("/category-sitemap.xml", xmlType, urlset([]smURL{{"http://ident.example/category/news/", day0}}))
	bare.Put("/author-sitemap.xml", xmlType, urlset([]smURL{{"http://ident.example/author/ann/", day0}}))
	bare.Put("/category/news/", htmlType, "<html><body>listing</body></html>")
	bare.Put("/author/ann/", htmlType, "<html><body>listing</body></html>")
}

// TestOnePostOneRecord: every post of identBlog is stored once and its
// page fetched once, whichever spellings its feed and sitemap give; the
// moved feed costs one request from its second read on; no taxonomy or
// author sitemap or page is asked for. From the server's side and the
// store's.
func TestOnePostOneRecord(t *testing.T) {
	const posts = 6
	w := newWorld(t, "")
	identBlog(w.web, posts)
	ctx := context.Background()
	if _, _, err := w.db.AddSource(ctx, "http://ident.example/", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	day1 := len(w.web.Requests())
	w.clock.Advance(25 * time.Hour)
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	w.clean()

	var stored []string
	must(t, w.db.EachPost(ctx, func(p store.Post) error { stored = append(stored, p.URL+" "+p.State); return nil }))
	if len(stored) != posts {
		t.Errorf("%d posts stored, want %d: %v", len(stored), posts, stored)
	}
	for n := 1; n <= posts; n++ {
		want := fmt.Sprintf("https://www.ident.example/p%d", n)
		for _, u := range []string{want, fmt.Sprintf("http://ident.example/p%d/?utm_source=x", n)} {
			if p := w.post(u); p.URL != want || p.State != model.PostIndexed {
				t.Errorf("%s: stored as %s (%s), want %s indexed", u, p.URL, p.State, want)
			}
		}
	}
	fetched := map[string]int{}
	var feedDay2 []string
	for i, r := range w.web.Requests() {
		path := strings.TrimSuffix(r.URI, "/")
		if strings.HasPrefix(path, "/p") && !strings.Contains(path, "sitemap") {
			fetched[strings.SplitN(path, "?", 2)[0]]++
		}
		if strings.Contains(r.URI, "category") || strings.Contains(r.URI, "author") {
			t.Errorf("asked for %s%s: not posts", r.Host, r.URI)
		}
		if i >= day1 && r.URI == "/feed" {
			feedDay2 = append(feedDay2, r.Host+r.URI)
		}
	}
	for n := 1; n <= posts; n++ {
		if k := fetched[fmt.Sprintf("/p%d", n)]; k != 1 {
			t.Errorf("post %d: its page fetched %d times, want once", n, k)
		}
	}
	if len(feedDay2) != 1 || feedDay2[0] != "www.ident.example/feed" {
		t.Errorf("day 2's feed reads %v, want one, at the feed's new URL", feedDay2)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
