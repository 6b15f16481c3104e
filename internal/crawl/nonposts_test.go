package crawl_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// nonpostBlog is one blog of testdata/nonposts (see its README) as served.
type nonpostBlog struct {
	host     string
	posts    []string        // paths of the posts: each fetched once
	others   map[string]bool // paths of the other <loc>s: never fetched as posts
	sitemaps map[string]bool // paths of the sitemap files
}

var locRE = regexp.MustCompile(`<loc>([^<]+)</loc>`)

// serveNonposts serves testdata/nonposts on web: each file at its path, an
// article at every <loc> that is not a file.
func serveNonposts(t *testing.T, web *simweb.Web) []nonpostBlog {
	t.Helper()
	root := filepath.Join("testdata", "nonposts")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var blogs []nonpostBlog
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		b := nonpostBlog{host: d.Name(), others: map[string]bool{}, sitemaps: map[string]bool{}}
		h := web.Host(b.host)
		files, err := os.ReadDir(filepath.Join(root, b.host))
		if err != nil {
			t.Fatal(err)
		}
		var locs []string
		for _, f := range files {
			body, err := os.ReadFile(filepath.Join(root, b.host, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			switch name := f.Name(); {
			case name == "_posts.txt":
				b.posts = strings.Fields(string(body))
			case name == "robots.txt":
				h.Robots(string(body))
			case name == "index.html":
				h.Put("/", htmlType, string(body))
			case name == "feed":
				h.Put("/feed", rssType, string(body))
			case strings.HasSuffix(name, ".xml"):
				h.Put("/"+name, xmlType, string(body))
				b.sitemaps["/"+name] = true
				for _, m := range locRE.FindAllStringSubmatch(string(body), -1) {
					locs = append(locs, m[1])
				}
			default:
				t.Fatalf("%s/%s: no rule to serve it", b.host, name)
			}
		}
		for _, loc := range locs {
			u, err := url.Parse(loc)
			if err != nil || u.Host != b.host {
				t.Fatalf("%s lists %q", b.host, loc)
			}
			p := u.RequestURI()
			if b.sitemaps[p] {
				continue
			}
			if p != "/" {
				h.Put(p, htmlType, article("Page "+p, "text of "+p, ""))
			}
			if !slices.Contains(b.posts, p) {
				b.others[p] = true
			}
		}
		blogs = append(blogs, b)
	}
	if len(blogs) != 4 {
		t.Fatalf("%d blogs in %s", len(blogs), root)
	}
	return blogs
}

// skips is what a blog's sitemaps skipped: entries by shape and sitemaps
// by name, each as pages, taxonomies, authors, other.
type skips struct{ entries, sitemaps [4]int }

// sourceSkips totals the skip counts of all a source's sitemaps, index
// children included, and returns the sitemaps by path.
func sourceSkips(t *testing.T, db *store.DB, host string) (skips, map[string]store.Sitemap) {
	t.Helper()
	ctx := context.Background()
	src, _, err := db.AddSource(ctx, "http://"+host+"/", start)
	if err != nil {
		t.Fatal(err)
	}
	var got skips
	byPath := map[string]store.Sitemap{}
	var walk func(sms []store.Sitemap)
	walk = func(sms []store.Sitemap) {
		for _, m := range sms {
			u, _ := url.Parse(m.URL)
			byPath[u.Path] = m
			got.entries[0] += m.SkippedPages
			got.entries[1] += m.SkippedTaxonomies
			got.entries[2] += m.SkippedAuthors
			got.entries[3] += m.SkippedOther
			if m.State == model.SitemapSkipped {
				got.sitemaps[slices.Index([]string{"pages", "taxonomies", "authors", "other"}, m.Kind)]++
			}
			kids, err := db.ChildSitemaps(ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			walk(kids)
		}
	}
	top, err := db.SourceSitemaps(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	walk(top)
	return got, byPath
}

// nonpostWant is, per blog, the kind of each sitemap (by its name, as the
// generators document them) and the skip counts.
var nonpostWant = map[string]struct {
	kinds map[string]string
	skips skips
}{
	"wpcore.example": {map[string]string{
		"/wp-sitemap.xml": "unknown", "/wp-sitemap-posts-post-1.xml": "posts", "/wp-sitemap-posts-page-1.xml": "pages",
		"/wp-sitemap-taxonomies-category-1.xml": "taxonomies", "/wp-sitemap-taxonomies-post_tag-1.xml": "taxonomies",
		"/wp-sitemap-users-1.xml": "authors",
	}, skips{sitemaps: [4]int{1, 2, 1, 0}}},
	"yoast.example": {map[string]string{
		"/sitemap_index.xml": "unknown", "/post-sitemap.xml": "posts", "/page-sitemap.xml": "pages",
		"/category-sitemap.xml": "taxonomies", "/post_tag-sitemap.xml": "taxonomies", "/author-sitemap.xml": "authors",
	}, skips{entries: [4]int{0, 0, 0, 1}, sitemaps: [4]int{1, 2, 1, 0}}}, // /blog/, the posts page
	"generic.example": {map[string]string{"/sitemap.xml": "unknown"},
		// /p/about.html; /tags/go/, /tag/rust/, /categories/notes/;
		// /author/jane/, /authors/bob/; /, /posts/, /posts/page/2/.
		skips{entries: [4]int{1, 3, 2, 3}}},
	"listed.example": {map[string]string{
		"/post-sitemap.xml": "posts", "/page-sitemap.xml": "pages", "/category-sitemap.xml": "taxonomies", "/author-sitemap.xml": "authors",
	}, skips{entries: [4]int{0, 0, 0, 1}, sitemaps: [4]int{1, 1, 1, 0}}}, // the home page
}

// TestNonPostSitemaps crawls blogs shaped like WordPress core's, Yoast's, a
// generic single sitemap's and a robots.txt naming each sitemap, for two
// days: every post is fetched once, and no sitemap of pages, taxonomies or
// authors and no page, term or author archive is ever requested, as the
// servers saw it; the store has each sitemap's kind and the skip counts,
// which a 304 on day 2 keeps.
func TestNonPostSitemaps(t *testing.T) {
	w := newWorld(t, "")
	blogs := serveNonposts(t, w.web)
	ctx := context.Background()
	for _, b := range blogs {
		if _, _, err := w.db.AddSource(ctx, "http://"+b.host+"/", w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	check := func(day string, wantPostFetches int) {
		t.Helper()
		for _, b := range blogs {
			want := nonpostWant[b.host]
			fetches := map[string]int{}
			for _, r := range w.web.RequestsTo(b.host) {
				fetches[r.URI]++
			}
			for _, p := range b.posts {
				if fetches[p] != wantPostFetches {
					t.Errorf("%s: %s%s fetched %d times, want %d", day, b.host, p, fetches[p], wantPostFetches)
				}
				if got := w.post("http://" + b.host + p); got.State != model.PostIndexed {
					t.Errorf("%s: post %s%s: %s", day, b.host, p, got.State)
				}
			}
			for p := range b.others {
				if p != "/" && fetches[p] != 0 { // the home page is discovery's, once
					t.Errorf("%s: %s%s, not a post, requested %d times", day, b.host, p, fetches[p])
				}
				if _, err := w.db.Post(ctx, "http://"+b.host+p); !errors.Is(err, model.ErrNotFound) {
					t.Errorf("%s: %s%s, not a post, stored as one (%v)", day, b.host, p, err)
				}
			}
			got, sms := sourceSkips(t, w.db, b.host)
			for p, kind := range want.kinds {
				m, ok := sms[p]
				read := kind == "posts" || kind == "unknown"
				switch {
				case !ok:
					t.Errorf("%s: %s%s not recorded", day, b.host, p)
				case m.Kind != kind:
					t.Errorf("%s: %s%s kind %q, want %q", day, b.host, p, m.Kind, kind)
				case read && m.State != "active", !read && (m.State != model.SitemapSkipped || !m.LastRead.IsZero()):
					t.Errorf("%s: %s%s (%s) state %s, last read %v", day, b.host, p, kind, m.State, m.LastRead)
				case !read && fetches[p] != 0:
					t.Errorf("%s: %s%s, a sitemap of %s, requested", day, b.host, p, kind)
				}
			}
			if len(sms) != len(want.kinds) {
				t.Errorf("%s: %s has %d sitemaps, want %d", day, b.host, len(sms), len(want.kinds))
			}
			if got != want.skips {
				t.Errorf("%s: %s skipped %+v, want %+v", day, b.host, got, want.skips)
			}
		}
	}

	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	check("day 1", 1)
	now := w.clock.Now()
	if n, err := w.db.CountDueSites(ctx, store.SiteQuery{Now: now, SitemapsBefore: now.Add(-w.s.SitemapInterval)}); err != nil || n != 0 {
		t.Errorf("after day 1, %d sites due (%v): a sitemap never read keeps its source due", n, err)
	}
	w.clean()

	// Day 2: the sitemaps are read again (conditionally, 304), nothing
	// changed; the skipped ones stay unread and the counts stay.
	w.clock.Advance(25 * time.Hour)
	w.web.Reset()
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	check("day 2", 0)
	reread := 0
	for _, r := range w.web.Requests() {
		if strings.HasSuffix(r.URI, ".xml") {
			reread++
		}
	}
	if reread == 0 {
		t.Errorf("day 2: no sitemap read again: the test shows nothing")
	}
	w.clean()
}

// TestSitemapSkippedAfterOlderRule: a taxonomy sitemap an older crawler
// read as posts (its URLs pending page fetches) is recorded as skipped at
// its index's next read, and its URLs are withdrawn (removed, unless
// another sitemap lists them) before a page of them is fetched.
func TestSitemapSkippedAfterOlderRule(t *testing.T) {
	w := newWorld(t, "")
	serveNonposts(t, w.web)
	ctx := context.Background()
	src, _, err := w.db.AddSource(ctx, "http://yoast.example/", w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	// As the older crawler left it: read, its URLs owed a page fetch.
	_, sms := sourceSkips(t, w.db, "yoast.example")
	cat := sms["/category-sitemap.xml"]
	cat.State, cat.Kind, cat.LastRead, cat.ReadLastmod = "active", "", w.clock.Now(), cat.Lastmod
	if err := w.db.UpdateSitemap(ctx, cat); err != nil {
		t.Fatal(err)
	}
	terms := []store.SitemapURL{{Loc: "http://yoast.example/category/news/"}, {Loc: "http://yoast.example/category/opinion/"}}
	if d, err := w.db.IngestSitemap(ctx, cat, time.Time{}, terms, true); err != nil || d.New != 2 {
		t.Fatalf("older read: %+v, %v", d, err)
	}
	if due, _ := w.db.PostsDue(ctx, src.ID, w.clock.Now(), 10); len(due) != 2 {
		t.Fatalf("older read left %d pages owed, want 2", len(due))
	}

	w.clock.Advance(25 * time.Hour)
	w.web.Reset()
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range w.web.RequestsTo("yoast.example") {
		if strings.HasPrefix(r.URI, "/category/") || r.URI == "/category-sitemap.xml" {
			t.Errorf("requested %s", r.URI)
		}
	}
	for _, u := range terms {
		if p := w.post(u.Loc); p.State != model.PostRemoved || p.Due {
			t.Errorf("%s: state %s, due %v; want removed, not due", u.Loc, p.State, p.Due)
		}
	}
	if _, sms = sourceSkips(t, w.db, "yoast.example"); sms["/category-sitemap.xml"].State != model.SitemapSkipped ||
		sms["/category-sitemap.xml"].Kind != "taxonomies" {
		t.Errorf("category sitemap: %+v", sms["/category-sitemap.xml"])
	}
	w.clean()
}
