package farm

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/robots"
	"corpus.blog/corpusbot/sitemap"
)

var day1 = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

// clock is a settable time for the farm.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time   { return time.Unix(0, c.t.Load()).UTC() }
func (c *clock) set(t time.Time)  { c.t.Store(t.UnixNano()) }
func newClock(t time.Time) *clock { c := &clock{}; c.set(t); return c }

func host(i int) string { return fmt.Sprintf("blog%d.example", i) }

type answer struct {
	status int
	header http.Header
	body   []byte
}

func get(f *Farm, rawURL string, hdr ...string) answer {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	req := httptest.NewRequest(http.MethodGet, rawURL, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	f.Handler(u.Hostname()).ServeHTTP(rec, req)
	return answer{rec.Code, rec.Header(), rec.Body.Bytes()}
}

// hostOf finds a host whose site has the named shape.
func hostOf(t *testing.T, f *Farm, shape string) string {
	t.Helper()
	for i := range 10000 {
		if f.Site(host(i), 1).Shape.Name == shape {
			return host(i)
		}
	}
	t.Fatalf("no site of shape %s", shape)
	return ""
}

func TestSitesAreDeterministicAndSpreadOverShapes(t *testing.T) {
	f := New(Config{Now: newClock(day1).now, MinPosts: 5, MaxPosts: 50})
	seen := map[string]int{}
	for i := range 2600 {
		a, b := f.Site(host(i), 3), f.Site(host(i), 3)
		if a.Shape.Name != b.Shape.Name || a.Posts != b.Posts || a.Post(a.Posts) != b.Post(b.Posts) {
			t.Fatalf("%s differs between two calls", host(i))
		}
		if a.Initial < 5 || a.Initial > 50 {
			t.Errorf("%s: %d posts on day 1, want 5 to 50", host(i), a.Initial)
		}
		seen[a.Shape.Name]++
	}
	for _, sh := range DemoShapes() {
		// 2600 sites over 13 shapes: 200 each on average.
		if n := seen[sh.Name]; n < 120 || n > 280 {
			t.Errorf("shape %s: %d of 2600 sites", sh.Name, n)
		}
	}
	other := New(Config{Now: newClock(day1).now, Seed: 99, MinPosts: 5, MaxPosts: 50})
	same := 0
	for i := range 200 {
		if other.Site(host(i), 1).Shape.Name == f.Site(host(i), 1).Shape.Name {
			same++
		}
	}
	if same > 60 {
		t.Errorf("another seed gives %d of 200 sites the same shape", same)
	}
}

// A shape's own post bounds replace the Config's for its sites alone, and
// its weight sets its share: a few deep sites among many small ones.
func TestShapePostBoundsAndWeights(t *testing.T) {
	shapes := []Shape{
		{Name: "deep", Weight: 1, Feed: FeedRSS, Catalogue: CataloguePaged, MinPosts: 150, MaxPosts: 200},
		{Name: "small", Weight: 9, Feed: FeedAtom},
	}
	f := New(Config{Now: newClock(day1).now, Shapes: shapes, MinPosts: 2, MaxPosts: 8})
	count := map[string]int{}
	for i := range 1000 {
		s := f.Site(host(i), 1)
		count[s.Shape.Name]++
		lo, hi := 2, 8
		if s.Shape.Name == "deep" {
			lo, hi = 150, 200
		}
		if s.Initial < lo || s.Initial > hi {
			t.Errorf("%s (%s): %d posts on day 1, want %d to %d", host(i), s.Shape.Name, s.Initial, lo, hi)
		}
	}
	if n := count["deep"]; n < 60 || n > 140 {
		t.Errorf("deep sites: %d of 1000, want about 100", n)
	}
}

// walkCatalogue reads a site's feed page after page, as the crawler's
// catalogue walk does, and returns the entries in order.
func walkCatalogue(t *testing.T, f *Farm, s Site) []feed.Entry {
	t.Helper()
	var out []feed.Entry
	next := s.FeedURL()
	for page := 1; next != ""; page++ {
		a := get(f, next)
		if a.status != 200 {
			t.Fatalf("%s: %d", next, a.status)
		}
		doc, err := feed.Parse(a.body, next)
		if err != nil {
			t.Fatalf("%s: %v", next, err)
		}
		out = append(out, doc.Entries...)
		switch s.Shape.Catalogue {
		case CatalogueNone:
			next = ""
		case CatalogueNext:
			next = doc.Next
		case CataloguePaged:
			next = fmt.Sprintf("%s?paged=%d", s.FeedURL(), page+1)
			if get(f, next).status == 404 {
				next = ""
			}
		}
		if page > 100 {
			t.Fatal("the catalogue does not end")
		}
	}
	return out
}

// sitemapURLs reads the site's sitemap (following an index) and returns
// the page URLs it lists.
func sitemapURLs(t *testing.T, f *Farm, smURL string) []string {
	t.Helper()
	a := get(f, smURL)
	if a.status != 200 {
		t.Fatalf("%s: %d", smURL, a.status)
	}
	var out []string
	_, err := sitemap.Read(bytes.NewReader(a.body), sitemap.Options{}, func(e sitemap.Entry) error {
		if e.Type == sitemap.Sitemap {
			out = append(out, sitemapURLs(t, f, e.Loc)...)
		} else {
			out = append(out, e.Loc)
		}
		if e.Lastmod.IsZero() {
			t.Errorf("%s: %s has no lastmod", smURL, e.Loc)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", smURL, err)
	}
	return out
}

// Every shape serves what its description says, and what the crawler
// reads of it adds up: the catalogue lists every post once, newest first,
// the sitemap every post, and every post URL answers.
func TestShapesServeWhatTheySay(t *testing.T) {
	f := New(Config{Now: newClock(day1.Add(49 * time.Hour)).now, MinPosts: 12, MaxPosts: 40, Active: 0.5})
	for _, sh := range DemoShapes() {
		t.Run(sh.Name, func(t *testing.T) {
			h := hostOf(t, f, sh.Name)
			s := f.Site(h, f.Day(f.cfg.Now()))
			if s.Day != 3 {
				t.Fatalf("day %d, want 3", s.Day)
			}
			rb := get(f, s.URL("/robots.txt"))
			var rules *robots.Rules
			switch sh.Robots {
			case Robots404:
				if rb.status != 404 {
					t.Errorf("robots.txt: %d, want 404", rb.status)
				}
				rules = robots.AllowAll()
			case Robots503:
				if rb.status != 503 {
					t.Errorf("robots.txt: %d, want 503", rb.status)
				}
				return
			default:
				if rb.status != 200 {
					t.Fatalf("robots.txt: %d", rb.status)
				}
				file := robots.Parse(rb.body)
				rules = file.For("CorpusBot")
				if d, _ := rules.CrawlDelay(); (sh.Robots == RobotsCrawlDelay) != (d == CrawlDelay) {
					t.Errorf("Crawl-delay %v", d)
				}
				named := len(file.Sitemaps()) > 0
				if want := sh.Sitemap == SitemapRobots || sh.Sitemap == SitemapIndex; named != want {
					t.Errorf("robots.txt names a sitemap: %v, want %v", named, want)
				}
			}
			home := get(f, s.URL("/"))
			if sh.Refuse {
				if home.status != 403 {
					t.Errorf("homepage behind the firewall: %d", home.status)
				}
				return
			}
			if home.status != 200 {
				t.Fatalf("homepage: %d", home.status)
			}
			links := feed.Discover(home.body, s.URL("/"))
			if want := sh.Feed != FeedNone && !sh.Unlinked; (len(links) == 1) != want {
				t.Errorf("homepage declares %v, want a feed: %v", links, want)
			}
			if sh.Robots == RobotsDisallowUs && rules.Allowed("/") || sh.Robots == RobotsNoFeed && rules.Allowed(FeedPath(sh.Feed)) {
				t.Error("robots.txt allows what it should not")
			}
			if sh.Feed != FeedNone {
				entries := walkCatalogue(t, f, s)
				if want := s.Posts; sh.Catalogue != CatalogueNone && len(entries) != want {
					t.Errorf("catalogue lists %d entries, want %d", len(entries), want)
				}
				for i, e := range entries {
					p := s.Post(s.Posts - i)
					if e.Link != s.URL(p.Path) || !e.Published.Equal(p.Published) || e.Title != p.Title {
						t.Fatalf("entry %d: %s %v %q, want post %d %s %v %q", i, e.Link, e.Published, e.Title, p.N, p.Path, p.Published, p.Title)
					}
					if e.FullContent != sh.Full {
						t.Errorf("entry %d: full content %v", i, e.FullContent)
					}
				}
			}
			var smURLs []string
			switch sh.Sitemap {
			case SitemapRobots, SitemapWellKnown:
				smURLs = sitemapURLs(t, f, s.URL("/sitemap.xml"))
			case SitemapIndex:
				smURLs = sitemapURLs(t, f, s.URL("/sitemap_index.xml"))
			default:
				if a := get(f, s.URL("/sitemap.xml")); a.status != 404 {
					t.Errorf("no sitemap, yet /sitemap.xml answers %d", a.status)
				}
			}
			if sh.Sitemap != SitemapNone && len(smURLs) != s.Posts {
				t.Errorf("sitemap lists %d URLs, want %d", len(smURLs), s.Posts)
			}
			for n := 1; n <= s.Posts; n++ {
				p := s.Post(n)
				a := get(f, s.URL(p.Path))
				if a.status != 200 {
					t.Fatalf("post %d %s: %d", n, p.Path, a.status)
				}
				page := string(a.body)
				if sh.Shell == strings.Contains(page, "<article>") {
					t.Errorf("post %d: shell %v, page %q", n, sh.Shell, page[:80])
				}
				if p.Noindex != strings.Contains(page, `content="noindex"`) {
					t.Errorf("post %d: noindex %v", n, p.Noindex)
				}
				if private := strings.HasPrefix(p.Path, "/private/"); private != (sh.Private > 0 && n%sh.Private == 0) || private && rules.Allowed(p.Path) {
					t.Errorf("post %d at %s", n, p.Path)
				}
			}
			for _, bad := range []string{"/nothing", "/2020/01/01/wrong-slug-1/", fmt.Sprintf("/x-%d/", s.Posts+1)} {
				if a := get(f, s.URL(bad)); a.status != 404 {
					t.Errorf("%s: %d, want 404", bad, a.status)
				}
			}
		})
	}
}

// A second day is 304s for the sites that published nothing overnight,
// and the new post on page one for those that did; a post page never
// changes.
func TestSecondDayIsMostlyNotModified(t *testing.T) {
	c := newClock(day1.Add(time.Hour))
	f := New(Config{Now: c.now, Shapes: FeedShapes(), Active: 0.1})
	type seen struct{ etag, lm, post string }
	first := map[string]seen{}
	const sites = 1000
	for i := range sites {
		s := f.Site(host(i), 1)
		a := get(f, s.FeedURL())
		if a.status != 200 || a.header.Get("ETag") == "" || a.header.Get("Last-Modified") == "" {
			t.Fatalf("%s: %d %v", s.FeedURL(), a.status, a.header)
		}
		p := s.Post(1)
		first[host(i)] = seen{a.header.Get("ETag"), a.header.Get("Last-Modified"), p.Path}
	}
	c.set(day1.Add(25 * time.Hour))
	changed := 0
	for i := range sites {
		s := f.Site(host(i), 2)
		was := first[host(i)]
		byTag := get(f, s.FeedURL(), "If-None-Match", was.etag)
		byDate := get(f, s.FeedURL(), "If-Modified-Since", was.lm)
		if s.NewOn(2) == 0 {
			if byTag.status != 304 || byDate.status != 304 {
				t.Errorf("%s published nothing, yet %d and %d", host(i), byTag.status, byDate.status)
			}
		} else {
			changed++
			if byTag.status != 200 || byDate.status != 200 {
				t.Fatalf("%s published, yet %d and %d", host(i), byTag.status, byDate.status)
			}
			doc, err := feed.Parse(byTag.body, s.FeedURL())
			if err != nil {
				t.Fatal(err)
			}
			if want := s.URL(s.Post(s.Posts).Path); doc.Entries[0].Link != want || s.Posts != s.Initial+1 {
				t.Errorf("%s: page one starts with %s, want the new post %s", host(i), doc.Entries[0].Link, want)
			}
			if p := s.Post(s.Posts).Published; !p.Before(f.DayStart(2)) || !p.After(f.DayStart(1)) {
				t.Errorf("%s: the new post is dated %v, not overnight", host(i), p)
			}
		}
		if a := get(f, s.URL(was.post), "If-Modified-Since", s.Post(1).Published.Format(http.TimeFormat)); a.status != 304 {
			t.Errorf("%s: an old post answered %d", host(i), a.status)
		}
	}
	// Active is 0.1: about a hundred of the thousand sites published.
	if changed < 60 || changed > 140 {
		t.Errorf("%d of %d sites published overnight, want about 100", changed, sites)
	}
}

func TestEveryPostIsFoundWhereItsDaySaysAcrossDays(t *testing.T) {
	c := newClock(day1)
	f := New(Config{Now: c.now, Active: 0.8, MinPosts: 2, MaxPosts: 4})
	s := f.Site(hostOf(t, f, "section"), 6)
	if s.Posts <= s.Initial {
		t.Fatalf("%d posts on day 6, %d on day 1: want some new", s.Posts, s.Initial)
	}
	for n := 1; n <= s.Posts; n++ {
		if n > 1 && !s.Post(n).Published.After(s.Post(n-1).Published) {
			t.Errorf("post %d is not newer than post %d", n, n-1)
		}
	}
	c.set(f.DayStart(6).Add(time.Minute))
	last := s.Post(s.Posts)
	if a := get(f, s.URL(last.Path)); a.status != 200 {
		t.Errorf("day 6's newest post: %d", a.status)
	}
	c.set(f.DayStart(2))
	if a := get(f, s.URL(last.Path)); a.status != 404 {
		t.Errorf("day 6's newest post on day 2: %d, want 404", a.status)
	}
}
