package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// testNow is the fixed "now" of every test.
var testNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// secretTexts are the stored bodies of the fixture's posts. Each is
// distinctive enough that finding it anywhere in a response can only mean
// the text leaked.
var secretTexts = []string{
	"ZEBRA-QUARTZ private body text of the first post, never to be served",
	"MARMALADE-OSCILLOSCOPE second stored body, strictly internal",
	"PERIWINKLE-TURBINE third text kept privately by the crawler",
	"<script>alert('x')</script> HOSTILE-BODY with markup in it",
}

// secretError is an internal error text stored as a feed's last failure:
// the site shows its reason as "other", never the text.
const secretError = "dial tcp 10.0.0.1:443: OBSIDIAN-INTERNAL connect failure"

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testStore is the fixture's store: a temporary SQLite database seeded
// through the store's API, as the crawler fills it, and the public site's
// view of it. Its helpers answer the tests' questions about what a form
// changed.
type testStore struct {
	t  testing.TB
	db *sqlite.DB
	*store.SiteData
}

// AddSource adds a source as the crawler would ("sources add"), at now.
func (s *testStore) AddSource(u string, now time.Time) int64 {
	s.t.Helper()
	src, _, err := s.db.AddSource(context.Background(), u, now)
	if err != nil {
		s.t.Fatal(err)
	}
	return src.ID
}

// SourcePaused reports whether the source with that ID is paused, as the
// site shows it.
func (s *testStore) SourcePaused(id int64) bool {
	s.t.Helper()
	ctx := context.Background()
	src, err := s.db.Source(ctx, id)
	if err != nil {
		s.t.Fatal(err)
	}
	d, err := s.Site(ctx, src.Site, testNow)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, x := range d.Sources {
		if x.ID == id {
			return x.Paused
		}
	}
	s.t.Fatalf("source %d not on its site's page", id)
	return false
}

// SiteOptedOut reports whether the whole site is opted out.
func (s *testStore) SiteOptedOut(site string) bool {
	s.t.Helper()
	ok, err := s.db.OptedOut(context.Background(), site)
	if err != nil {
		s.t.Fatal(err)
	}
	return ok
}

// fixtureSource is one source of the fixture: its feeds, its sitemaps
// (read once, naming the posts listed in Named) and its posts.
type fixtureSource struct {
	key        string
	url        string
	added      time.Time
	discovered time.Time
	feeds      []store.Feed
	sitemaps   []store.Sitemap
	named      []string // URLs the sitemap named at its read
}

// fixturePost is a post as the crawl would leave it.
type fixturePost struct {
	source    string
	url       string
	title     string
	published time.Time
	state     string
	text      string
	citations []string
	err       string // the failure stored with a post in state error
}

// seedAt fills a temporary SQLite store with two sites of several sources
// each, posts in every interesting state (with secret texts, one indexed
// with no published date), citations across sites, origins, a refusal and
// a request log with 304s, every date relative to dataNow.
func seedAt(t testing.TB, dataNow time.Time) (*testStore, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "site.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	day := func(n int) time.Time { return dataNow.AddDate(0, 0, -n) }
	sources := []fixtureSource{
		{key: "alpha", url: "https://alpha.example/", added: day(40), discovered: day(39),
			feeds:    []store.Feed{{URL: "https://alpha.example/feed", Title: "Alpha feed", State: model.FeedActive, Catalogue: model.CatalogueDone, Pages: 7, LastRead: day(1), Checked: day(1)}},
			sitemaps: []store.Sitemap{{URL: "https://alpha.example/sitemap.xml", Via: model.ViaRobots, State: "active", LastRead: day(2)}},
			named:    []string{"https://alpha.example/one", "https://alpha.example/two"}},
		{key: "alpha-blog", url: "https://blog.alpha.example/", added: day(30), discovered: day(29),
			feeds: []store.Feed{{URL: "https://blog.alpha.example/rss", State: model.FeedDisallowed, Catalogue: model.CatalogueNone, Checked: day(3)}}},
		{key: "beta", url: "https://beta.example/", added: day(20), discovered: day(19)},
		{key: "gamma", url: "https://gamma.blogspot.com/", added: day(1)},
		{key: "delta", url: "https://delta.example/", added: day(10), discovered: day(9),
			// A source's title is its feed's: this one is hostile markup.
			// Its last failure is an internal error text, never to be shown.
			feeds: []store.Feed{{URL: "https://delta.example/feed", Title: "Beta & <Friends>", State: model.FeedError, Catalogue: model.CatalogueInterrupted,
				Error: secretError}}},
	}
	ids := map[string]int64{}
	for _, fs := range sources {
		src, _, err := db.AddSource(ctx, fs.url, fs.added)
		must(err)
		ids[fs.key] = src.ID
		if !fs.discovered.IsZero() {
			must(db.MarkDiscovered(ctx, src.ID, fs.discovered))
		}
		for _, f := range fs.feeds {
			added, err := db.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: f.URL, State: f.State})
			must(err)
			f.ID, f.SourceID = added.ID, src.ID
			must(db.UpdateFeed(ctx, f))
		}
	}
	posts := []fixturePost{
		{source: "alpha", url: "https://alpha.example/one", title: "First post", published: day(35), state: model.PostIndexed, text: secretTexts[0],
			citations: []string{"https://beta.example/x", "https://beta.example/y", "https://alpha.example/self", "https://delta.example/z"}},
		{source: "alpha", url: "https://alpha.example/two", title: "Second post", published: day(5), state: model.PostIndexed, text: secretTexts[1]},
		{source: "alpha", url: "https://alpha.example/app", title: "An app shell", published: day(4), state: model.PostShell, text: secretTexts[2]},
		{source: "alpha", url: "https://alpha.example/hidden", title: "Hidden", state: model.PostNoindex},
		{source: "alpha-blog", url: "https://blog.alpha.example/p", title: "Blog post", published: day(100), state: model.PostDisallowed},
		{source: "delta", url: "https://delta.example/a", title: "Delta <b>bold</b>", published: day(60), state: model.PostIndexed, text: secretTexts[3],
			citations: []string{"https://www.alpha.example/one"}},
		{source: "delta", url: "https://delta.example/b", title: "Delta error", state: model.PostError, err: "timeout"},
		// No published date: counted by the date first seen.
		{source: "delta", url: "https://delta.example/undated", title: "Undated post", state: model.PostIndexed, text: secretTexts[3]},
	}
	for _, p := range posts {
		_, err := db.AddPosts(ctx, []store.NewPost{{URL: p.url, SourceID: ids[p.source], Title: p.title, Published: p.published, Seen: day(2)}})
		must(err)
		stored, err := db.Post(ctx, p.url)
		must(err)
		res := store.PageResult{PostID: stored.ID, State: p.state, Text: p.text, Citations: p.citations, Fetched: day(1), Error: p.err}
		if p.text != "" {
			res.TextFrom = model.TextFromPage
		}
		must(db.SavePage(ctx, res))
	}
	// The sitemaps name posts the feeds and pages already named.
	for _, fs := range sources {
		for _, m := range fs.sitemaps {
			m.SourceID = ids[fs.key]
			added, err := db.AddSitemap(ctx, m)
			must(err)
			urls := make([]store.SitemapURL, len(fs.named))
			for i, u := range fs.named {
				urls[i] = store.SitemapURL{Loc: u}
			}
			_, err = db.IngestSitemap(ctx, added, m.LastRead, urls, true)
			must(err)
			added.State, added.LastRead = m.State, m.LastRead
			must(db.UpdateSitemap(ctx, added))
		}
	}
	must(db.PutOrigin(ctx, model.Origin{Origin: "https://alpha.example:443", Status: 200, State: "parsed", Checked: day(1)}))
	must(db.PutOrigin(ctx, model.Origin{Origin: "https://blog.alpha.example:443", Status: 200, State: "parsed", Checked: day(1)}))
	must(db.PutOrigin(ctx, model.Origin{Origin: "https://delta.example:443", Status: 503, State: "unreachable", Checked: day(1)}))
	must(db.PutRefusal(ctx, "refuser.example", model.RefusalState{Consecutive403: 3, Refused: true, LastAsked: day(1)}))
	var log []model.RequestRecord
	for i := range 12 {
		st := 200
		if i%3 == 0 {
			st = 304
		}
		log = append(log, model.RequestRecord{Site: "alpha.example", URL: "https://alpha.example/feed", Purpose: model.PurposeFeed, Status: st,
			Outcome: model.OutcomeFetched, Conditional: i > 0, Bytes: 1000, Start: day(i % 5).Add(-time.Hour), Duration: time.Second})
	}
	log = append(log,
		model.RequestRecord{Site: "alpha.example", URL: "https://alpha.example/robots.txt", Purpose: model.PurposeRobots, Status: 200, Outcome: model.OutcomeFetched, Start: day(6)},
		model.RequestRecord{Site: "alpha.example", URL: "https://blog.alpha.example/rss", Purpose: model.PurposeFeed, Outcome: model.OutcomeDisallowed, Start: day(3)})
	for i := range 11 { // conditional, never 304: the never-304 gap
		log = append(log, model.RequestRecord{Site: "delta.example", URL: "https://delta.example/feed", Purpose: model.PurposeFeed, Status: 200,
			Outcome: model.OutcomeFetched, Conditional: true, Start: day(i), Duration: time.Second})
	}
	must(db.LogRequests(ctx, log))
	return &testStore{t: t, db: db, SiteData: db.SiteData()}, ids
}

func testSettings() config.Settings { return config.Defaults() }

type fakeTXT struct {
	records map[string][]string
	calls   int
	mu      sync.Mutex
}

func (f *fakeTXT) LookupTXT(ctx context.Context, name string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if r, ok := f.records[name]; ok {
		return r, nil
	}
	return nil, fmt.Errorf("lookup %s: no such host", name)
}

func (f *fakeTXT) set(name string, vals ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.records[name] = vals
}

type fakeFetcher struct {
	mu    sync.Mutex
	files map[string]string
	asked []string
}

func (f *fakeFetcher) FetchClaimFile(ctx context.Context, u string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, u)
	if b, ok := f.files[u]; ok {
		return []byte(b), nil
	}
	return nil, fmt.Errorf("404 Not Found")
}

func (f *fakeFetcher) set(u, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[u] = body
}

type rig struct {
	t     *testing.T
	srv   *Server
	data  *testStore
	ids   map[string]int64
	clock *clock
	txt   *fakeTXT
	files *fakeFetcher
}

func newRig(t *testing.T, mod ...func(*Options)) *rig {
	t.Helper()
	return newRigAt(t, testNow, mod...)
}

// newRigAt is newRig over seedAt(dataNow): the clock stays at testNow.
func newRigAt(t *testing.T, dataNow time.Time, mod ...func(*Options)) *rig {
	t.Helper()
	m, ids := seedAt(t, dataNow)
	r := &rig{t: t, data: m, ids: ids, clock: &clock{t: testNow}, txt: &fakeTXT{records: map[string][]string{}}, files: &fakeFetcher{files: map[string]string{}}}
	opt := Options{Data: m, Settings: testSettings(), Now: r.clock.Now, Resolver: r.txt, ClaimFetcher: r.files,
		FormLimit: RateLimit{Burst: 1000, Every: time.Millisecond}}
	for _, f := range mod {
		f(&opt)
	}
	srv, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	r.srv = srv
	return r
}

// resp is a recorded response.
type resp struct {
	Code   int
	Header http.Header
	Body   string
}

func (r *rig) do(req *http.Request) resp {
	r.t.Helper()
	if req.RemoteAddr == "" || req.RemoteAddr == "192.0.2.1:1234" {
		req.RemoteAddr = "198.51.100.7:40000"
	}
	w := httptest.NewRecorder()
	r.srv.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	return resp{Code: w.Code, Header: w.Result().Header, Body: string(b)}
}

func (r *rig) get(path string) resp {
	r.t.Helper()
	return r.do(httptest.NewRequest(http.MethodGet, path, nil))
}

// post sends a form as a same-origin browser would.
func (r *rig) post(path string, form url.Values) resp {
	r.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return r.do(req)
}
