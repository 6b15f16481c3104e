package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// stateBlog serves a small blog on h: a homepage declaring /feed, the feed
// naming one post, the post.
func stateBlog(h *simweb.Host) {
	h.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>`+h.Name()+`</title>
<link rel="alternate" type="application/rss+xml" href="/feed"></head><body><p>Hello.</p></body></html>`)
	h.Put("/feed", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>`+h.Name()+`</title>
<link>`+h.URL("/")+`</link><item><title>One</title><link>`+h.URL("/one")+`</link><pubDate>Sun, 01 Mar 2026 10:00:00 GMT</pubDate></item>
</channel></rss>`)
	h.Put("/one", "text/html; charset=utf-8", `<!doctype html><html><head><title>One</title></head><body><article><h1>One</h1><p>`+
		strings.Repeat("The text of the first post. ", 40)+`</p></article></body></html>`)
}

// TestSourceStatesCrawled crawls one site of each kind on the simulated web
// into a SQLite file: one whose robots.txt disallows CorpusBot "/" (and
// names a sitemap, as the demo's private-* sites do: it used to show as
// active), one answering 403 to everything but robots.txt until the refusal
// list takes it, one whose robots.txt answers 503, one with no feed, an
// active one and one paused by its owner. The public site's list
// (SiteData.Sites, what /sources and /api/sources show) and `export
// --sources` say the same state of each, and the right one; the blocked
// site was asked for robots.txt alone.
func TestSourceStatesCrawled(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "c.db")
	ctx := context.Background()
	clock := simweb.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	web := simweb.New(simweb.WithClock(clock.Now))
	defer web.Close()

	blocked := web.Host("blocked.example")
	stateBlog(blocked)
	blocked.Robots("User-agent: CorpusBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n\nSitemap: http://blocked.example/sitemap.xml\n")
	blocked.Put("/sitemap.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<url><loc>http://blocked.example/one</loc></url></urlset>`)

	refused := web.Host("refused.example")
	refused.Robots("User-agent: *\nAllow: /\n") // what the politeness check judges by; the override serves it
	refused.Override(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		http.Error(w, "Forbidden", http.StatusForbidden)
	}))

	unreachable := web.Host("unreachable.example")
	stateBlog(unreachable)
	unreachable.RobotsStatus(http.StatusServiceUnavailable)

	nofeed := web.Host("nofeed.example")
	nofeed.Robots("User-agent: *\nAllow: /\n")
	nofeed.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>No feed</title></head><body><p>Just a page.</p></body></html>`)

	for _, name := range []string{"active.example", "paused.example"} {
		h := web.Host(name)
		h.Robots("User-agent: *\nDisallow: /private/\n")
		stateBlog(h)
	}

	want := map[string]string{
		"blocked.example": model.StateBlocked, "refused.example": model.StateRefused, "unreachable.example": model.StateUnreachable,
		"nofeed.example": model.StateNoFeed, "active.example": model.StateActive, "paused.example": model.StatePaused,
	}
	s := config.Defaults()
	s.DB = dbPath
	c := newSimCrawl(t, web, clock, s, nil)
	st := c.st
	ids := map[string]int64{}
	for site := range want {
		ids[site] = c.add("http://" + site + "/")["http://"+site+"/"]
	}
	c.once()
	c.finish()
	if err := st.SiteData().PauseSource(ctx, ids["paused.example"], "claim", clock.Now()); err != nil {
		t.Fatal(err)
	}
	c.polite()
	for _, r := range web.RequestsTo("blocked.example") {
		if r.URI != "/robots.txt" {
			t.Errorf("blocked.example was asked for %s", r.URI)
		}
	}

	// The public site's list, and its filter by each state.
	page, err := st.SiteData().Sites(ctx, model.SitesQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	onSite := map[string]string{}
	for _, sum := range page.Sites {
		if len(sum.States) != 1 {
			t.Errorf("%s: states %v, want one", sum.Site, sum.States)
			continue
		}
		onSite[sum.Site] = sum.States[0]
	}
	for site, state := range want {
		if onSite[site] != state {
			t.Errorf("site list: %s is %q, want %q", site, onSite[site], state)
		}
		p, err := st.SiteData().Sites(ctx, model.SitesQuery{Limit: 100, State: state})
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 1 || p.Sites[0].Site != site {
			t.Errorf("sites in state %s: %+v, want %s alone", state, p.Sites, site)
		}
	}
	st.Close()

	out, errOut, code := runCLI(t, nil, map[string]string{"CORPUSBOT_DB": dbPath}, "export", "--sources")
	if code != 0 {
		t.Fatalf("export --sources: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d source lines, want %d:\n%s", len(lines), len(want), out)
	}
	for _, raw := range lines {
		var l struct{ Source, State string }
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(raw, `{"source":"`+l.Source+`","state":"`) {
			t.Errorf("state is not the field after source: %s", raw)
		}
		site := strings.TrimSuffix(strings.TrimPrefix(l.Source, "http://"), "/")
		if l.State != want[site] || l.State != onSite[site] {
			t.Errorf("export: %s is %q; the site says %q, want %q", l.Source, l.State, onSite[site], want[site])
		}
	}
}

// TestSourceStateFollowsRobots: a site that starts blocking CorpusBot after
// its discovery is shown blocked once its robots.txt is read again, and
// active again once it lets us back in: the state follows every read of
// the file, not only the first.
func TestSourceStateFollowsRobots(t *testing.T) {
	ctx := context.Background()
	clock := simweb.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	web := simweb.New(simweb.WithClock(clock.Now))
	defer web.Close()
	h := web.Host("turns.example")
	stateBlog(h)
	h.Robots("User-agent: *\nAllow: /\n")

	s := config.Defaults()
	s.DB = filepath.Join(t.TempDir(), "c.db")
	// The feed due every round, robots.txt read again after a minute, and a
	// feed robots.txt disallowed asked again after a minute too.
	s.FeedInterval, s.RobotsTTL, s.DisallowedRecheck = 0, time.Minute, time.Minute
	c := newSimCrawl(t, web, clock, s, nil)
	st := c.st
	c.add(h.URL("/"))
	state := func() string {
		t.Helper()
		page, err := st.SiteData().Sites(ctx, model.SitesQuery{Limit: 10})
		if err != nil || len(page.Sites) != 1 || len(page.Sites[0].States) != 1 {
			t.Fatalf("sites: %+v %v", page, err)
		}
		return page.Sites[0].States[0]
	}
	for i, step := range []struct {
		robots, want string
	}{
		{"User-agent: *\nAllow: /\n", model.StateActive},
		{"User-agent: CorpusBot\nDisallow: /\n", model.StateBlocked},
		{"User-agent: *\nAllow: /\n", model.StateActive},
	} {
		h.Robots(step.robots)
		c.once()
		if got := state(); got != step.want {
			t.Errorf("round %d: %s, want %s", i+1, got, step.want)
		}
		clock.Advance(2 * time.Minute)
	}
}
