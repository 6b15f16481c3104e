package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
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

// seed fills a MemData with two sites of several sources each, posts in
// every interesting state (with secret texts), citations across sites,
// origins, a refusal and a request log with 304s.
func seed(t testing.TB) (*MemData, map[string]int64) {
	t.Helper()
	m := NewMemData()
	ids := map[string]int64{}
	day := func(n int) time.Time { return testNow.AddDate(0, 0, -n) }
	ids["alpha"] = m.AddSource(MemSource{URL: "https://alpha.example/", Title: "Alpha Notes", Added: day(40), Discovered: day(39),
		Feeds:    []model.Feed{{URL: "https://alpha.example/feed", Title: "Alpha feed", State: "active", Catalogue: "done", Pages: 7, LastRead: day(1), Checked: day(1)}},
		Sitemaps: []model.Sitemap{{URL: "https://alpha.example/sitemap.xml", Via: "robots", State: "active", LastRead: day(2), URLs: 120}}})
	ids["alpha-blog"] = m.AddSource(MemSource{URL: "https://blog.alpha.example/", Added: day(30), Discovered: day(29),
		Feeds: []model.Feed{{URL: "https://blog.alpha.example/rss", State: "disallowed", Catalogue: "none", Checked: day(3)}}})
	ids["beta"] = m.AddSource(MemSource{URL: "https://beta.example/", Title: "Beta & <Friends>", Added: day(20), Discovered: day(19)})
	ids["gamma"] = m.AddSource(MemSource{URL: "https://gamma.blogspot.com/", Added: day(1)})
	ids["delta"] = m.AddSource(MemSource{URL: "https://delta.example/", Added: day(10), Discovered: day(9),
		Feeds: []model.Feed{{URL: "https://delta.example/feed", State: "error", Catalogue: "interrupted"}}})
	posts := []MemPost{
		{URL: "https://alpha.example/one", SourceID: ids["alpha"], Title: "First post", Published: day(35), State: "indexed", Text: secretTexts[0],
			Citations: []string{"https://beta.example/x", "https://beta.example/y", "https://alpha.example/self", "https://delta.example/z"}},
		{URL: "https://alpha.example/two", SourceID: ids["alpha"], Title: "Second post", Published: day(5), State: "indexed", Text: secretTexts[1]},
		{URL: "https://alpha.example/app", SourceID: ids["alpha"], Title: "An app shell", Published: day(4), State: "shell", Text: secretTexts[2]},
		{URL: "https://alpha.example/hidden", SourceID: ids["alpha"], Title: "Hidden", State: "noindex"},
		{URL: "https://blog.alpha.example/p", SourceID: ids["alpha-blog"], Title: "Blog post", Published: day(100), State: "disallowed"},
		{URL: "https://delta.example/a", SourceID: ids["delta"], Title: "Delta <b>bold</b>", Published: day(60), State: "indexed", Text: secretTexts[3],
			Citations: []string{"https://www.alpha.example/one"}},
		{URL: "https://delta.example/b", SourceID: ids["delta"], Title: "Delta error", State: "error"},
	}
	for _, p := range posts {
		if err := m.AddPost(p); err != nil {
			t.Fatal(err)
		}
	}
	m.SetOrigin(model.Origin{Origin: "https://alpha.example:443", Status: 200, State: "parsed", Checked: day(1)})
	m.SetOrigin(model.Origin{Origin: "https://blog.alpha.example:443", Status: 200, State: "parsed", Checked: day(1)})
	m.SetOrigin(model.Origin{Origin: "https://delta.example:443", Status: 503, State: "unreachable", Checked: day(1)})
	m.SetRefused("refuser.example", true)
	for i := range 12 {
		st := 200
		if i%3 == 0 {
			st = 304
		}
		m.LogRequest(MemRequest{Site: "alpha.example", URL: "https://alpha.example/feed", Purpose: "feed", Status: st, Outcome: "fetched", Conditional: i > 0, Bytes: 1000, Start: day(i % 5).Add(-time.Hour)})
	}
	m.LogRequest(MemRequest{Site: "alpha.example", URL: "https://alpha.example/robots.txt", Purpose: "robots", Status: 200, Outcome: "fetched", Start: day(6)})
	m.LogRequest(MemRequest{Site: "alpha.example", URL: "https://blog.alpha.example/rss", Purpose: "feed", Outcome: "disallowed", Start: day(3)})
	for i := range 11 { // conditional, never 304: the never-304 gap
		m.LogRequest(MemRequest{Site: "delta.example", URL: "https://delta.example/feed", Purpose: "feed", Status: 200, Outcome: "fetched", Conditional: true, Start: day(i)})
	}
	return m, ids
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
	data  *MemData
	ids   map[string]int64
	clock *clock
	txt   *fakeTXT
	files *fakeFetcher
}

func newRig(t *testing.T, mod ...func(*Options)) *rig {
	t.Helper()
	m, ids := seed(t)
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
