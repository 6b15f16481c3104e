package main

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

func openDB(t *testing.T, path string) *app.DB {
	t.Helper()
	s := config.Defaults()
	s.DB = path
	db, err := app.OpenStore(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// `sources retry` clears a site's robots.txt guess, refusal record and
// back-off, says what it cleared in one line, and fails for a site with
// no source.
func TestSourcesRetry(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": path}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "https://blog.example/", "https://other.example/"); code != 0 {
		t.Fatalf("sources add: %d %s", code, errOut)
	}
	now := time.Now()
	held := store.Retry{Attempts: 1, At: now.Add(6 * time.Hour), Error: "robots.txt unreachable"}
	func() {
		db := openDB(t, path)
		for _, origin := range []string{"https://blog.example:443", "https://other.example:443"} {
			if err := db.PutRobots(ctx, model.RobotsRecord{Origin: origin, State: "unreachable", TTL: 6 * time.Hour,
				Checked: now, Expires: now.Add(6 * time.Hour), UnreachableSince: now}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.PutRefusal(ctx, "blog.example", model.RefusalState{Consecutive403: 3, Refused: true, LastAsked: now}); err != nil {
			t.Fatal(err)
		}
		if err := db.EachSource(ctx, func(s store.Source) error { return db.PostponeDiscovery(ctx, s.ID, held) }); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}()

	out, errOut, code := runCLI(t, nil, env, "sources", "retry", "https://www.blog.example/some/post")
	if code != 0 {
		t.Fatalf("sources retry: %d %s", code, errOut)
	}
	if want := "blog.example: 1 source; cleared 1 robots.txt entry, 1 refusal record, 0 stored waits, and the back-off of 0 feeds, 0 sitemaps, 0 posts and 1 discovery\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	db := openDB(t, path)
	if _, err := db.Robots(ctx, "https://blog.example:443"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("blog.example's robots entry: %v, want gone", err)
	}
	if _, err := db.Robots(ctx, "https://other.example:443"); err != nil {
		t.Errorf("other.example's robots entry: %v, want kept", err)
	}
	if st, _ := db.Refusal(ctx, "blog.example"); st.Refused {
		t.Errorf("refusal kept: %+v", st)
	}
	err := db.EachSource(ctx, func(s store.Source) error {
		if cleared := s.Site == "blog.example"; cleared != s.DiscoverAfter.IsZero() || cleared != (s.Attempts == 0) {
			t.Errorf("%s: discover after %v, attempts %d", s.URL, s.DiscoverAfter, s.Attempts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	_, errOut, code = runCLI(t, nil, env, "sources", "retry", "nothing.example")
	if code == 0 || !strings.Contains(errOut, "no source of nothing.example") {
		t.Errorf("unknown site: %d %q", code, errOut)
	}
	_, errOut, code = runCLI(t, nil, map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "none.db")}, "sources", "retry", "blog.example")
	if code == 0 || !strings.Contains(errOut, "no source of blog.example") {
		t.Errorf("no database: %d %q", code, errOut)
	}
	if _, _, code = runCLI(t, nil, env, "sources", "retry"); code != exitUsage {
		t.Errorf("no argument: exit %d", code)
	}
}

// A blog on a loopback address, crawled by `run --once` as an operator
// would: first without ALLOW_PRIVATE, when the guard refuses it, nothing
// is sent and nothing is stored as the site's answer (no robots.txt
// entry, no refusal record, the source neither discovered nor postponed,
// no try counted), and the run fails with the guard's error; then with
// ALLOW_PRIVATE, when the very next run crawls it, without waiting out
// any stored expiry (issue 18).
func TestPrivateAddressThenAllowed(t *testing.T) {
	ctx := context.Background()
	web := simweb.New()
	defer web.Close()
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	h := web.Host(base.Hostname())
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", "text/html; charset=utf-8", `<html><head><title>Loopback blog</title>`+
		`<link rel="alternate" type="application/rss+xml" href="/feed"></head><body><h1>Loopback blog</h1></body></html>`)
	var items strings.Builder
	for i := 1; i <= 2; i++ {
		fmt.Fprintf(&items, `<item><title>Post %d</title><link>%s/p%d</link><pubDate>Sun, 01 Mar 2026 1%d:00:00 GMT</pubDate>`+
			`<description>Summary %d.</description></item>`, i, srv.URL, i, i, i)
		h.Put(fmt.Sprintf("/p%d", i), "text/html; charset=utf-8", fmt.Sprintf(`<html><head><title>Post %d</title></head>`+
			`<body><article><h1>Post %d</h1><p>%s</p></article></body></html>`, i, i, strings.Repeat("The text of a post on a loopback blog. ", 20)))
	}
	h.Put("/feed", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>Loopback blog</title>`+
		`<link>`+srv.URL+`/</link>`+items.String()+`</channel></rss>`)

	path := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": path, "CORPUSBOT_MIN_GAP": "1ms", "CORPUSBOT_CATALOGUE_PAGE_DELAY": "1ms",
		"CORPUSBOT_ALLOW_PRIVATE": "false"}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", srv.URL+"/"); code != 0 {
		t.Fatalf("sources add: %d %s", code, errOut)
	}
	_, errOut, code := runCLI(t, nil, env, "run", "--once")
	if code == 0 || !strings.Contains(errOut, "private address refused") || !strings.Contains(errOut, "ALLOW_PRIVATE is off") {
		t.Fatalf("run without ALLOW_PRIVATE: exit %d, want the guard's error; stderr:\n%s", code, errOut)
	}
	if n := len(web.Requests()); n != 0 {
		t.Fatalf("%d requests reached the loopback blog through the guard", n)
	}
	site := model.SiteOfURL(srv.URL)
	func() {
		db := openDB(t, path)
		if r, err := db.Robots(ctx, model.OriginOf(base)); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("robots record stored for a guard refusal: %+v %v", r, err)
		}
		if st, err := db.Refusal(ctx, site); err != nil || st != (model.RefusalState{}) {
			t.Errorf("refusal record: %+v %v", st, err)
		}
		err := db.EachSource(ctx, func(s store.Source) error {
			if !s.Discovered.IsZero() || !s.DiscoverAfter.IsZero() || s.Attempts != 0 || s.Error != "" {
				t.Errorf("source changed by a guard refusal: %+v", s)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}()

	env["CORPUSBOT_ALLOW_PRIVATE"] = "true"
	if _, errOut, code := runCLI(t, nil, env, "run", "--once"); code != 0 {
		t.Fatalf("run with ALLOW_PRIVATE: exit %d; stderr:\n%s", code, errOut)
	}
	asked := map[string]bool{}
	for _, r := range web.Requests() {
		asked[r.URI] = true
	}
	for _, uri := range []string{"/robots.txt", "/", "/feed", "/p1", "/p2"} {
		if !asked[uri] {
			t.Errorf("%s not asked with ALLOW_PRIVATE on (asked %v)", uri, asked)
		}
	}
	db := openDB(t, path)
	if r, err := db.Robots(ctx, model.OriginOf(base)); err != nil || r.State != "parsed" {
		t.Errorf("robots record after the allowed run: %+v %v", r, err)
	}
	for i := 1; i <= 2; i++ {
		p, err := db.Post(ctx, fmt.Sprintf("%s/p%d", srv.URL, i))
		if err != nil || p.State != model.PostIndexed {
			t.Errorf("post %d: %+v %v, want indexed", i, p.State, err)
		}
	}
}
