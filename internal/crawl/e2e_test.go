package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// blogs is the simulated corpus of the end-to-end test, with handles for
// the changes of day 2.
type blogs struct {
	alphaFeed, gammaIndex, gammaSM1, gammaG2, deltaRobots *simweb.Resource
	alphaItems                                            []item
	gammaURLs                                             []smURL
}

var day0 = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)

// buildBlogs: alpha is a summary feed with a catalogue (two pages), a
// comment feed, noindex by meta and by header, nofollow; beta is a
// full-content feed; gamma has no feed link (found at /feed), a sitemap
// index named in robots.txt, and a disallowed /private/; delta's feed is
// disallowed for CorpusBot by name.
func buildBlogs(web *simweb.Web) *blogs {
	b := &blogs{}
	a := web.Host("alpha.example")
	a.Robots("User-agent: *\nDisallow: /wp-admin/\n")
	a.Put("/", htmlType, homepage("/feed", "/comments/feed"))
	a.Put("/sitemap.xml", htmlType, "<html><body>Not found, but 200</body></html>")
	for _, it := range []item{{"/p1", "One", day0, false}, {"/p2", "Two", day0.Add(time.Hour), false}, {"/p3", "Three", day0.Add(2 * time.Hour), false}} {
		b.alphaItems = append(b.alphaItems, item{a.URL(it.link), it.title, it.date, false})
	}
	b.alphaFeed = a.Put("/feed", rssType, rss(reverse(b.alphaItems)))
	a.Put("/comments/feed", rssType, rss([]item{{a.URL("/p1#comment-1"), "Comment on One", day0, false}}))
	a.Put("/feed?paged=2", rssType, rss([]item{{a.URL("/p4"), "Four", day0.Add(-time.Hour), false}, {a.URL("/p5"), "Five", day0.Add(-2 * time.Hour), false}}))
	a.Put("/p1", htmlType, article("One", "alpha one", ""))
	a.Put("/p2", htmlType, article("Two", "alpha two", `<meta name="robots" content="nofollow">`))
	a.Put("/p3", htmlType, article("Three", "alpha three", `<meta name="CorpusBot" content="noindex">`))
	a.Put("/p4", htmlType, article("Four", "alpha four", ""))
	p5 := simweb.NewResource(htmlType, article("Five", "alpha five", ""))
	a.Handle("/p5", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Robots-Tag", "corpusbot: noindex")
		p5.ServeHTTP(w, r)
	}))

	be := web.Host("beta.example")
	be.Robots("User-agent: *\nAllow: /\n")
	be.Put("/", htmlType, homepage("/feed"))
	be.Put("/feed", rssType, rss([]item{{be.URL("/b1"), "B1", day0, true}, {be.URL("/b2"), "B2", day0, true}, {be.URL("/b3"), "B3", day0, true}}))
	for _, p := range []string{"/b1", "/b2", "/b3"} {
		be.Put(p, htmlType, article("B", "never fetched", ""))
	}

	g := web.Host("gamma.example")
	g.Robots("User-agent: *\nDisallow: /private/\nSitemap: http://gamma.example/sitemap_index.xml\n")
	g.Put("/", htmlType, "<html><head><title>Gamma</title></head><body>No feed link here.</body></html>")
	g.Put("/feed", rssType, rss([]item{{g.URL("/g1"), "G1", day0, false}, {g.URL("/g2"), "G2", day0, false}}))
	b.gammaURLs = []smURL{{g.URL("/g1"), day0}, {g.URL("/g2"), day0}, {g.URL("/g3"), day0}, {g.URL("/private/g4"), day0}}
	b.gammaSM1 = g.Put("/sm1.xml", xmlType, urlset(b.gammaURLs))
	g.Put("/sm2.xml", xmlType, urlset([]smURL{{g.URL("/g5"), day0.Add(-300 * 24 * time.Hour)}}))
	b.gammaIndex = g.Put("/sitemap_index.xml", xmlType, index(g, day0, day0.Add(-300*24*time.Hour)))
	g.Put("/g1", htmlType, article("G1", "gamma one", ""))
	b.gammaG2 = g.Put("/g2", htmlType, article("G2", "gamma two", ""))
	g.Put("/g3", htmlType, article("G3", "gamma three", ""))
	g.Put("/g5", htmlType, article("G5", "gamma five", ""))
	g.Put("/private/g4", htmlType, article("G4", "private", ""))

	d := web.Host("delta.example")
	b.deltaRobots = d.Robots("User-agent: CorpusBot\nDisallow: /feed\n\nUser-agent: *\nAllow: /\n")
	d.Put("/", htmlType, homepage("/feed"))
	d.Put("/feed", rssType, rss([]item{{d.URL("/d1"), "D1", day0, false}}))
	d.Put("/d1", htmlType, article("D1", "delta one", ""))
	return b
}

// day2 moves a day on and changes the web: a new post on alpha; on gamma
// g2 modified and g3 removed from its sitemap.
func (b *blogs) day2(w *world) {
	w.clock.Advance(25 * time.Hour)
	day2 := w.clock.Now()
	w.web.Host("alpha.example").Put("/p6", htmlType, article("Six", "alpha six", ""))
	b.alphaItems = append(b.alphaItems, item{"http://alpha.example/p6", "Six", day2, false})
	b.alphaFeed.Update(rss(reverse(b.alphaItems)), day2)
	b.gammaG2.Update(article("G2", "gamma two, revised", ""), day2)
	b.gammaSM1.Update(urlset([]smURL{b.gammaURLs[0], {b.gammaURLs[1].loc, day2}, b.gammaURLs[3]}), day2)
	b.gammaIndex.Update(index(w.web.Host("gamma.example"), day2, day0.Add(-300*24*time.Hour)), day2)
}

func index(g *simweb.Host, lm1, lm2 time.Time) string {
	return `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
		`<sitemap><loc>` + g.URL("/sm2.xml") + `</loc><lastmod>` + lm2.Format(time.RFC3339) + `</lastmod></sitemap>` +
		`<sitemap><loc>` + g.URL("/sm1.xml") + `</loc><lastmod>` + lm1.Format(time.RFC3339) + `</lastmod></sitemap></sitemapindex>`
}

func reverse(items []item) []item {
	out := make([]item, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return out
}

var postPages = map[string]map[string]bool{
	"alpha.example": {"/p1": true, "/p2": true, "/p3": true, "/p4": true, "/p5": true, "/p6": true},
	"beta.example":  {"/b1": true, "/b2": true, "/b3": true},
	"gamma.example": {"/g1": true, "/g2": true, "/g3": true, "/g5": true, "/private/g4": true},
	"delta.example": {"/d1": true},
}

func TestDays(t *testing.T) {
	w := newWorld(t, "")
	b := buildBlogs(w.web)
	ctx := context.Background()
	for _, h := range []string{"alpha.example", "beta.example", "gamma.example", "delta.example"} {
		if _, _, err := w.db.AddSource(ctx, "http://"+h+"/", w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}

	// Day 1.
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"http://alpha.example/p1": model.PostIndexed, "http://alpha.example/p2": model.PostIndexed,
		"http://alpha.example/p3": model.PostNoindex, "http://alpha.example/p4": model.PostIndexed,
		"http://alpha.example/p5": model.PostNoindex,
		"http://beta.example/b1":  model.PostIndexed, "http://beta.example/b2": model.PostIndexed, "http://beta.example/b3": model.PostIndexed,
		"http://gamma.example/g1": model.PostIndexed, "http://gamma.example/g2": model.PostIndexed,
		"http://gamma.example/g3": model.PostIndexed, "http://gamma.example/g5": model.PostIndexed,
		"http://gamma.example/private/g4": model.PostDisallowed,
	}
	checkStates(t, w, want)
	for _, u := range []string{"http://alpha.example/p3", "http://alpha.example/p5"} {
		if p := w.post(u); p.Text != "" {
			t.Errorf("%s: noindex page kept text", u)
		}
	}
	if p := w.post("http://alpha.example/p1"); len(p.Citations) != 1 || p.TextFrom != model.TextFromPage || p.Text == "" {
		t.Errorf("p1: %+v", p)
	}
	if p := w.post("http://alpha.example/p2"); len(p.Citations) != 0 {
		t.Errorf("nofollow page has citations %v", p.Citations)
	}
	if p := w.post("http://beta.example/b1"); p.TextFrom != model.TextFromFeed {
		t.Errorf("b1 text_from %q", p.TextFrom)
	}
	if got := pageURIs(w.web, "beta.example", postPages["beta.example"]); len(got) != 0 {
		t.Errorf("full-content feed's pages fetched: %v", got)
	}
	if got := pageURIs(w.web, "gamma.example", map[string]bool{"/private/g4": true}); len(got) != 0 {
		t.Errorf("disallowed page fetched")
	}
	for host, pages := range postPages {
		seen := map[string]int{}
		for _, u := range pageURIs(w.web, host, pages) {
			if seen[u]++; seen[u] > 1 {
				t.Errorf("%s%s fetched twice on day 1", host, u)
			}
		}
	}
	feeds := feedsOf(t, w, "http://alpha.example/")
	if len(feeds) != 1 || feeds[0].Catalogue != model.CatalogueDone {
		t.Errorf("alpha feeds (comment feed refused, catalogue done): %+v", feeds)
	}
	if f := feedsOf(t, w, "http://delta.example/"); len(f) != 1 || f[0].State != model.FeedDisallowed {
		t.Errorf("delta feed: %+v", f)
	}
	if f := feedsOf(t, w, "http://gamma.example/"); len(f) != 1 || f[0].URL != "http://gamma.example/feed" {
		t.Errorf("gamma feed by well-known path: %+v", f)
	}
	ctxb := context.Background()
	for host, want := range map[string]string{"alpha.example": "200 parsed", "delta.example": "200 parsed"} {
		u, _ := url.Parse("http://" + host + "/")
		o, err := w.db.Origin(ctxb, model.OriginOf(u))
		if err != nil || fmt.Sprintf("%d %s", o.Status, o.State) != want {
			t.Errorf("%s robots standing %+v (%v), want %s", host, o, err, want)
		}
	}
	for src, want := range map[string][]string{"http://alpha.example/": nil, "http://gamma.example/": {"http://gamma.example/sitemap_index.xml robots"}} {
		s, _, _ := w.db.AddSource(ctxb, src, w.clock.Now())
		sms, err := w.db.SourceSitemaps(ctxb, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range sms {
			got = append(got, m.URL+" "+m.Via)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s sitemaps %v, want %v (an HTML 200 is not a sitemap)", src, got, want)
		}
	}
	w.clean()

	// Day 2: a new post on alpha; on gamma g2 modified and g3 removed.
	b.day2(w)
	w.web.Reset()
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	reqs, notModified := w.web.Requests(), 0
	for _, r := range reqs {
		if r.Status == http.StatusNotModified {
			notModified++
		}
	}
	t.Logf("day 2: %d requests (%d answered 304) for 2 new-or-modified posts", len(reqs), notModified)
	var pages []string
	for host, pp := range postPages {
		for _, u := range pageURIs(w.web, host, pp) {
			pages = append(pages, host+u)
		}
	}
	if len(pages) != 2 || !(contains(pages, "alpha.example/p6") && contains(pages, "gamma.example/g2")) {
		t.Errorf("day 2 page fetches %v, want exactly alpha/p6 and gamma/g2", pages)
	}
	for _, r := range w.web.Requests() {
		reread := r.URI == "/feed" || r.URI == "/sitemap_index.xml" || r.URI == "/sm1.xml" || r.URI == "/robots.txt" || r.URI == "/g2"
		if reread && r.Header.Get("If-None-Match") == "" && r.Header.Get("If-Modified-Since") == "" && r.Host != "delta.example" {
			t.Errorf("re-read of %s%s not conditional", r.Host, r.URI)
		}
		if r.URI == "/sm2.xml" {
			t.Errorf("index child whose lastmod did not advance was read")
		}
	}
	checkStates(t, w, map[string]string{"http://gamma.example/g3": model.PostRemoved, "http://alpha.example/p6": model.PostIndexed,
		"http://gamma.example/g2": model.PostIndexed})
	if p := w.post("http://gamma.example/g3"); p.Text == "" {
		t.Errorf("removed post lost its text")
	}
	if p := w.post("http://gamma.example/g2"); !strings.Contains(p.Text, "revised") {
		t.Errorf("modified page not re-read: %q", p.Text[:min(40, len(p.Text))])
	}
	w.clean()

	// Day 9: delta lifts its rule; its feed resumes by itself.
	b.deltaRobots.Update("User-agent: *\nAllow: /\n", w.clock.Now())
	w.clock.Advance(7 * 24 * time.Hour)
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if f := feedsOf(t, w, "http://delta.example/"); f[0].State != model.FeedActive {
		t.Errorf("delta feed after the rule went: %+v", f[0])
	}
	checkStates(t, w, map[string]string{"http://delta.example/d1": model.PostIndexed})
	w.clean()
}

func checkStates(t *testing.T, w *world, want map[string]string) {
	t.Helper()
	for u, st := range want {
		p, err := w.db.Post(context.Background(), u)
		if err != nil {
			t.Errorf("%s not found (recall): %v", u, err)
			continue
		}
		if p.State != st {
			t.Errorf("%s: state %s, want %s", u, p.State, st)
		}
	}
}

func feedsOf(t *testing.T, w *world, src string) []store.Feed {
	t.Helper()
	s, _, err := w.db.AddSource(context.Background(), src, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	f, err := w.db.SourceFeeds(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
