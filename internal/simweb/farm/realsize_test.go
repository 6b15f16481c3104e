package farm

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/internal/extract"
)

// At SizesReal, article pages are 50–500 KB of HTML, spread over the range
// (not all at one size), the same on every request, and the extractor
// finds the article in them: its title and text, not the comments, the
// sidebar or the script state around it.
func TestRealPagesAreLargeAndExtractable(t *testing.T) {
	f := New(Config{Now: newClock(day1).now, Shapes: PageShapes(), Sizes: SizesReal, MinPosts: 3, MaxPosts: 6})
	var sizes []int
	for i := range 40 {
		s := f.Site(host(i), 1)
		for n := 1; n <= min(s.Posts, 3); n++ {
			p := s.Post(n)
			a := get(f, s.URL(p.Path))
			if a.status != 200 {
				t.Fatalf("%s: %d", p.Path, a.status)
			}
			sizes = append(sizes, len(a.body))
			if again := get(f, s.URL(p.Path)); string(again.body) != string(a.body) {
				t.Fatalf("%s differs between two requests", p.Path)
			}
			if i%8 != 0 || n != 1 {
				continue
			}
			u, _ := url.Parse(s.URL(p.Path))
			page, err := extract.Parse(a.body, u, "CorpusBot")
			if err != nil {
				t.Fatal(err)
			}
			body := s.realText(p)
			firstPara := body[strings.Index(body, "<p>")+3:]
			firstPara = firstPara[:min(60, strings.IndexAny(firstPara, "<"))]
			if page.Title != p.Title || !strings.Contains(page.Text, firstPara) {
				t.Errorf("%s: title %q, want %q; text starts %q, want it to hold %q", p.Path, page.Title, p.Title, page.Text[:min(80, len(page.Text))], firstPara)
			}
			if strings.Contains(page.Text, "Reply") || strings.Contains(page.Text, "__THEME_STATE__") || strings.Contains(page.Text, "Recent posts") {
				t.Errorf("%s: the extracted text holds the page's furniture", p.Path)
			}
			if len(page.Text) < len(body)/3 || len(page.Text) > len(body) { // plain text is shorter than its HTML: no furniture in it
				t.Errorf("%s: %d bytes of text from a %d-byte body in a %d-byte page", p.Path, len(page.Text), len(body), len(a.body))
			}
		}
	}
	slices.Sort(sizes)
	lo, med, hi := sizes[0], sizes[len(sizes)/2], sizes[len(sizes)-1]
	t.Logf("%d pages: %d–%d bytes, median %d", len(sizes), lo, hi, med)
	if lo < realPageMin-(4<<10) || hi > realPageMax+(4<<10) {
		t.Errorf("pages %d–%d bytes, want 50–500 KB", lo, hi)
	}
	if med < 80<<10 || med > 200<<10 || hi-lo < 100<<10 {
		t.Errorf("pages %d–%d bytes, median %d: want spread around 120 KB", lo, hi, med)
	}
	// The default stays small.
	small := New(Config{Now: newClock(day1).now, Shapes: PageShapes()})
	s := small.Site(host(0), 1)
	if a := get(small, s.URL(s.Post(1).Path)); len(a.body) > 8<<10 {
		t.Errorf("SizesSmall page: %d bytes", len(a.body))
	}
}

// At SizesReal, a full-content feed page of PageSize entries is 100 KB–1 MB,
// and parses into entries carrying each post's whole body.
func TestRealFullFeedsAreLarge(t *testing.T) {
	f := New(Config{Now: newClock(day1).now, Shapes: FeedShapes(), Sizes: SizesReal, MinPosts: 12, MaxPosts: 20})
	var sizes []int
	for i := range 30 {
		s := f.Site(host(i), 1)
		a := get(f, s.FeedURL())
		if a.status != 200 {
			t.Fatalf("%s: %d", s.FeedURL(), a.status)
		}
		sizes = append(sizes, len(a.body))
		doc, err := feed.Parse(a.body, s.FeedURL())
		if err != nil {
			t.Fatalf("%s: %v", s.FeedURL(), err)
		}
		if len(doc.Entries) != f.cfg.PageSize || !doc.Entries[0].FullContent || len(doc.Entries[0].Content) < 10<<10*3/4 {
			t.Errorf("%s: %d entries, the first full %v with %d bytes", s.FeedURL(), len(doc.Entries), doc.Entries[0].FullContent, len(doc.Entries[0].Content))
		}
	}
	slices.Sort(sizes)
	t.Logf("%d feeds: %d–%d bytes, median %d", len(sizes), sizes[0], sizes[len(sizes)-1], sizes[len(sizes)/2])
	if sizes[0] < realFeedMin*3/4 || sizes[len(sizes)-1] > realFeedMax*3/2 || sizes[len(sizes)-1]-sizes[0] < 300<<10 {
		t.Errorf("feeds %d–%d bytes, want spread over 100 KB–1 MB", sizes[0], sizes[len(sizes)-1])
	}
}

// With HTTPS, every URL a site publishes is https.
func TestHTTPSSitesPublishHTTPSURLs(t *testing.T) {
	f := New(Config{Now: newClock(day1).now, HTTPS: true})
	for _, shape := range []string{"press", "jsonfeed", "hugo"} {
		s := f.Site(hostOf(t, f, shape), 1)
		var docs []string
		for _, u := range []string{s.URL("/robots.txt"), s.FeedURL(), s.URL("/sitemap.xml"), s.URL("/sitemap_index.xml"), s.URL("/")} {
			if !strings.HasPrefix(u, "https://") {
				t.Fatalf("%s: URL %s", shape, u)
			}
			if a := get(f, u); a.status == 200 {
				docs = append(docs, string(a.body))
			}
		}
		all := strings.Join(docs, "\n")
		if !strings.Contains(all, "https://"+s.Host+"/") {
			t.Errorf("%s: no https URL of its own published", shape)
		}
		if strings.Contains(all, "http://"+s.Host) {
			t.Errorf("%s: publishes an http URL of its own", shape)
		}
	}
}
