package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

func TestPagesRender(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		path   string
		code   int
		ctype  string
		wants  []string
		absent []string
	}{
		{"/", 200, "text/html", []string{"A polite crawler", "CorpusBot/1.0 (+https://corpus.blog/crawler)", "4</span> sites"}, nil},
		{"/crawler", 200, "text/html", []string{"CorpusBot/1.0 (+https://corpus.blog/crawler)", "User-agent: CorpusBot", "Disallow: /", "Crawl-delay", "/crawler/ips.json", "/crawler/policy.json", "corpusbot verify", "MIN_GAP", "at least 1 second"}, []string{"./corpusbot.db"}},
		{"/coverage", 200, "text/html", []string{"Client-rendered shells", "No feed and no sitemap", "Refused (403)", "robots.txt unreachable", "<svg", "<title id=\"posts-month-t\">", "<desc id=\"requests-day-d\">", "Data table"}, nil},
		{"/sources", 200, "text/html", []string{"alpha.example", "beta.example", "Beta &amp; &lt;Friends&gt;", "4 sites"}, []string{"Beta & <Friends>"}},
		{"/sources/alpha.example", 200, "text/html", []string{"https://alpha.example/feed", "https://alpha.example/sitemap.xml", "First post", "links out to other sites", "What we asked of this site", "disallowed"}, nil},
		{"/sources/delta.example", 200, "text/html", []string{"Delta &lt;b&gt;bold&lt;/b&gt;", "unreachable"}, []string{"<b>bold</b>"}},
		{"/opt-out", 200, "text/html", []string{`<form class="card form" method="post" action="/opt-out"`, "Pause the whole site"}, nil},
		{"/claim", 200, "text/html", []string{"Start a claim", "/.well-known/corpusbot-claim.txt"}, nil},
		{"/api", 200, "text/html", []string{"/api/sources", "after", "limit"}, nil},
		{"/static/style.css", 200, "text/css", []string{"--accent"}, nil},
		{"/robots.txt", 200, "text/plain", []string{"Disallow: /claim"}, nil},
		{"/api/coverage", 200, "application/json", []string{`"gaps"`, `"posts_per_month"`}, nil},
		{"/api/sources", 200, "application/json", []string{`"sites"`, `"total": 4`}, nil},
		{"/api/sources/alpha.example", 200, "application/json", []string{`"feeds"`, `"citations"`}, nil},
		{"/api/crawler", 200, "application/json", []string{`"user_agent": "CorpusBot/1.0 (+https://corpus.blog/crawler)"`, `"MIN_GAP"`}, nil},
		{"/crawler/ips.json", 200, "application/json", []string{`"creationTime"`, `"prefixes"`}, nil},
		{"/crawler/policy.json", 200, "application/json", []string{`"schema": "corpusbot-crawl-policy"`, `"min_gap"`}, []string{"./corpusbot.db"}},
		{"/nope", 404, "text/html", []string{"Page not found"}, nil},
		{"/api/nope", 404, "application/json", []string{`"error"`}, nil},
		{"/sources/unknown.example", 404, "text/html", []string{"Site not found"}, nil},
		{"/api/sources/unknown.example", 404, "application/json", []string{"no such site"}, nil},
		{"/sources/not..valid", 400, "text/html", []string{"Not a site name"}, nil},
		{"/sources?limit=0", 400, "text/html", []string{"limit"}, nil},
		{"/api/sources?state=bogus", 400, "application/json", []string{"state"}, nil},
		{"/claim/AAAA", 404, "text/html", []string{"Claim not found"}, nil},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res := r.get(c.path)
			if res.Code != c.code {
				t.Fatalf("status %d, want %d\n%s", res.Code, c.code, res.Body)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, c.ctype) {
				t.Errorf("Content-Type %q, want %s", ct, c.ctype)
			}
			text := html.UnescapeString(res.Body)
			for _, w := range c.wants {
				if !strings.Contains(res.Body, w) && !strings.Contains(text, w) {
					t.Errorf("missing %q", w)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(res.Body, a) {
					t.Errorf("must not contain %q", a)
				}
			}
			checkSecurityHeaders(t, res)
		})
	}
}

func checkSecurityHeaders(t *testing.T, res resp) {
	t.Helper()
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP %q", csp)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("headers %v", res.Header)
	}
	if strings.Contains(res.Body, "<script") {
		t.Errorf("a page carries a script element")
	}
}

func TestSiteRedirectsToRegistrableSite(t *testing.T) {
	r := newRig(t)
	for path, want := range map[string]string{
		"/sources/blog.alpha.example":    "/sources/alpha.example",
		"/sources/ALPHA.example":         "/sources/alpha.example",
		"/api/sources/www.alpha.example": "/api/sources/alpha.example",
	} {
		res := r.get(path)
		if res.Code != http.StatusMovedPermanently || res.Header.Get("Location") != want {
			t.Errorf("%s: %d %q, want redirect to %s", path, res.Code, res.Header.Get("Location"), want)
		}
	}
}

func TestCrawlerPageFollowsSettings(t *testing.T) {
	r := newRig(t, func(o *Options) {
		o.Settings.UserAgent = "TestBot/2.0 (+https://bots.example.org/about)"
		o.Settings.MinGap = 3 * time.Second
		o.Settings.BodyMax = 2_000_000
		o.Settings.CatalogueMaxPages = 77
		o.Settings.RobotsTTL = 12 * time.Hour
		o.Settings.RefusalRecheck = 14 * 24 * time.Hour
		o.EgressPrefixes = []netip.Prefix{netip.MustParsePrefix("203.0.113.0/28"), netip.MustParsePrefix("2001:db8:1::/48")}
	})
	res := r.get("/crawler")
	res.Body = html.UnescapeString(res.Body)
	for _, w := range []string{
		"TestBot/2.0 (+https://bots.example.org/about)", "User-agent: TestBot", "at least 3 seconds",
		"2 MB", "after 77 pages", "kept for 12 hours", "once every 2 weeks", "<code>.bots.example.org</code>",
		"203.0.113.0/28", "2001:db8:1::/48", "corpusbot verify 203.0.113.0",
	} {
		if !strings.Contains(res.Body, w) {
			t.Errorf("crawler page lacks %q", w)
		}
	}
	for _, e := range testSettings().Entries() {
		if e.Name != "DB" && !strings.Contains(res.Body, "<code>"+e.Name+"</code>") {
			t.Errorf("setting %s missing from the table", e.Name)
		}
	}
	var doc struct {
		CreationTime string              `json:"creationTime"`
		Prefixes     []map[string]string `json:"prefixes"`
	}
	if err := json.Unmarshal([]byte(r.get("/crawler/ips.json").Body), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.CreationTime != "2026-12-02T12:00:00.000000" || len(doc.Prefixes) != 2 ||
		doc.Prefixes[0]["ipv4Prefix"] != "203.0.113.0/28" || doc.Prefixes[1]["ipv6Prefix"] != "2001:db8:1::/48" || len(doc.Prefixes[0]) != 1 {
		t.Errorf("ips.json %+v", doc)
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "1 second", 2 * time.Second: "2 seconds", 24 * time.Hour: "1 day", 6 * time.Hour: "6 hours",
		168 * time.Hour: "1 week", 90 * time.Minute: "1 hour 30 minutes", 250 * time.Millisecond: "250 milliseconds",
		10 * 24 * time.Hour: "10 days",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCoverageCounts(t *testing.T) {
	r := newRig(t)
	var d coverageData
	if err := json.Unmarshal([]byte(r.get("/api/coverage").Body), &d); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		model.GapDisallowed: 1, model.GapDisallowedPosts: 1, model.GapRefused: 1, model.GapRobotsUnreachable: 1, model.GapNoFeedNoSitemap: 1,
		model.GapShell: 1, model.GapNoindex: 1, model.GapErrors: 2, model.GapNever304: 1, model.GapPaused: 0,
	}
	if len(d.Coverage.Gaps) != len(model.GapReasons) {
		t.Fatalf("gaps %+v", d.Coverage.Gaps)
	}
	for i, g := range d.Coverage.Gaps {
		if g.Reason != model.GapReasons[i] || g.Count != want[g.Reason] {
			t.Errorf("gap %s = %d, want %s = %d", g.Reason, g.Count, model.GapReasons[i], want[model.GapReasons[i]])
		}
	}
	if d.Coverage.Sites != 4 || d.Coverage.Sources != 5 || d.Coverage.Posts != 8 || d.Coverage.Indexed != 4 {
		t.Errorf("totals %+v", d.Coverage)
	}
	states := map[string]int{}
	for _, s := range d.SourcesByState {
		states[s.State] = s.Count
	}
	if states[model.StateActive] != 1 || states[model.StateDisallowed] != 1 || states[model.StateNoFeed] != 1 || states[model.StatePending] != 1 || states[model.StateUnreachable] != 1 || len(d.SourcesByState) != len(model.SourceStates) {
		t.Errorf("sources by state %+v", d.SourcesByState)
	}
	// Every indexed post, the one with no published date by the month it
	// was first seen.
	total, undated, months := 0, 0, 0
	for _, m := range d.PostsPerMonth {
		total += m.Count
		undated += m.Undated
		months++
	}
	if total != d.Coverage.Indexed || undated != 1 || months != 2 {
		t.Errorf("posts per month %+v", d.PostsPerMonth)
	}
	reqs, nm := 0, 0
	for _, x := range d.RequestsPerDay {
		reqs += x.Requests
		nm += x.NotModified
	}
	if reqs != 24 || nm != 4 {
		t.Errorf("requests per day: %d requests, %d 304s; %+v", reqs, nm, d.RequestsPerDay)
	}
}

func TestSourcesPagination(t *testing.T) {
	r := newRig(t)
	var got []string
	next := "/api/sources?limit=1"
	for pages := 0; next != ""; pages++ {
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
		var pg struct {
			model.SitePage
			NextURL string `json:"next_url"`
		}
		res := r.get(next)
		if err := json.Unmarshal([]byte(res.Body), &pg); err != nil {
			t.Fatalf("%s: %v", next, err)
		}
		if pg.Total != 4 || len(pg.Sites) != 1 {
			t.Fatalf("page %+v", pg)
		}
		got = append(got, pg.Sites[0].Site)
		next = pg.NextURL
	}
	if strings.Join(got, " ") != "alpha.example beta.example delta.example gamma.blogspot.com" {
		t.Errorf("walked %v", got)
	}
	var pg model.SitePage
	json.Unmarshal([]byte(r.get("/api/sources?state=disallowed").Body), &pg)
	if pg.Total != 1 || pg.Sites[0].Site != "alpha.example" || pg.Sites[0].Sources != 2 || pg.Sites[0].Posts != 5 || pg.Sites[0].Indexed != 2 {
		t.Errorf("state filter %+v", pg)
	}
	html := r.get("/sources?limit=2")
	if !strings.Contains(html.Body, `href="/sources?after=beta.example&amp;limit=2"`) {
		t.Errorf("no next link on the HTML page")
	}
	html = r.get("/sources?limit=2&after=beta.example")
	if !strings.Contains(html.Body, "delta.example") || strings.Contains(html.Body, ">alpha.example<") || strings.Contains(html.Body, "Next page") {
		t.Errorf("second page wrong")
	}
	for _, bad := range []string{"limit=abc", "limit=501", "limit=-1", "state=nope", "after=" + strings.Repeat("a", 300)} {
		if res := r.get("/api/sources?" + bad); res.Code != 400 {
			t.Errorf("%s: %d", bad, res.Code)
		}
	}
}

func TestSourceDetail(t *testing.T) {
	r := newRig(t)
	var d model.SiteDetail
	if err := json.Unmarshal([]byte(r.get("/api/sources/alpha.example").Body), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Sources) != 2 || d.Sources[0].URL != "https://alpha.example/" || d.Sources[1].State != model.StateDisallowed {
		t.Errorf("sources %+v", d.Sources)
	}
	// Out: beta ×2, delta ×1 (the self-link is not a citation). In: delta ×1.
	if d.Citations.Out != 3 || d.Citations.In != 1 || d.Citations.TopOut[0] != (model.SiteCount{Site: "beta.example", Count: 2}) || d.Citations.TopIn[0].Site != "delta.example" {
		t.Errorf("citations %+v", d.Citations)
	}
	if d.Requests.Total != 13 || d.Requests.Withheld != 1 || d.Requests.NotModified != 4 || d.Requests.Conditional != 11 {
		t.Errorf("requests %+v", d.Requests)
	}
	if len(d.Recent) != 5 || d.Recent[0].Title != "An app shell" || d.Recent[len(d.Recent)-1].Title != "Hidden" {
		t.Errorf("recent %+v", d.Recent)
	}
	if len(d.Robots) != 2 {
		t.Errorf("robots %+v", d.Robots)
	}
}

func TestSiteOnAnAddress(t *testing.T) {
	r := newRig(t)
	r.data.AddSource("http://127.0.0.1:8000/", testNow)
	r.data.AddSource("http://intranet:8080/", testNow)
	for _, p := range []string{"/sources/127.0.0.1", "/sources/intranet", "/api/sources/127.0.0.1"} {
		if res := r.get(p); res.Code != 200 {
			t.Errorf("%s: %d", p, res.Code)
		}
	}
	if res := r.get("/sources/INTRANET"); res.Code != http.StatusMovedPermanently || res.Header.Get("Location") != "/sources/intranet" {
		t.Errorf("case: %d %s", res.Code, res.Header.Get("Location"))
	}
	if res := r.get("/sources/::ffff:127.0.0.1"); res.Code != http.StatusMovedPermanently {
		t.Errorf("mapped address: %d", res.Code)
	}
}

// TestCoverageErrorsTable: the coverage page and its JSON count the last
// failures by reason, the crawler's short reasons as they are and an
// internal error text only as "other".
func TestCoverageErrorsTable(t *testing.T) {
	r := newRig(t)
	page := r.get("/coverage").Body
	for _, want := range []string{`<h2 id="errors">Errors by reason</h2>`,
		`<tr><th scope="row">other</th><td class="n">1</td><td class="n">0</td><td class="n">0</td><td class="n">1</td></tr>`,
		`<tr><th scope="row">timeout</th><td class="n">0</td><td class="n">0</td><td class="n">1</td><td class="n">1</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("coverage page lacks %s", want)
		}
	}
	var d coverageData
	body := r.get("/api/coverage").Body
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatal(err)
	}
	want := []model.ErrorReason{{Reason: "other", Feeds: 1}, {Reason: "timeout", Posts: 1}}
	if len(d.Coverage.Errors) != len(want) || d.Coverage.Errors[0] != want[0] || d.Coverage.Errors[1] != want[1] {
		t.Errorf("errors %+v, want %+v", d.Coverage.Errors, want)
	}
	for _, frag := range []string{"OBSIDIAN", "10.0.0.1", "dial tcp"} {
		if strings.Contains(page, frag) || strings.Contains(body, frag) {
			t.Errorf("the stored error text is served (%q)", frag)
		}
	}
}
