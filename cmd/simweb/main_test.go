package main

import (
	"bufio"
	"context"
	"corpus.blog/corpusbot/internal/binarytest"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/robots"
)

const ua = "CorpusBot/1.0 (+https://corpus.blog/crawler)"

// rig is the command's server on a loopback port and a client that uses it
// as its HTTP proxy, as the crawler does.
type rig struct {
	t      *testing.T
	srv    *httptest.Server
	client *http.Client
	sc     *scenario
}

func newRig(t *testing.T) *rig {
	t.Helper()
	web := simweb.New()
	t.Cleanup(web.Close)
	sc, err := newScenario("days", web)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newServer(web, sc, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(srv.Close)
	proxy, _ := url.Parse(srv.URL)
	tr := &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &rig{t: t, srv: srv, client: &http.Client{Transport: tr}, sc: sc}
}

type answer struct {
	status int
	header http.Header
	body   string
	err    error
}

// get asks for u through the proxy, with header pairs.
func (r *rig) get(u string, hdr ...string) answer {
	r.t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// control calls a control endpoint directly (no proxy).
func (r *rig) control(method, path string) string {
	r.t.Helper()
	req, _ := http.NewRequest(method, r.srv.URL+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		r.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return string(b)
}

func (r *rig) manifest() manifest {
	r.t.Helper()
	var m manifest
	if err := json.Unmarshal([]byte(r.control("GET", "/scenario")), &m); err != nil {
		r.t.Fatal(err)
	}
	return m
}

func (r *rig) requests() []requestLine {
	r.t.Helper()
	var out []requestLine
	sc := bufio.NewScanner(strings.NewReader(r.control("GET", "/requests")))
	for sc.Scan() {
		var l requestLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			r.t.Fatalf("%s: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func (r *rig) violations(minGap string) []string {
	r.t.Helper()
	var out []string
	for l := range strings.Lines(r.control("GET", "/violations?min_gap="+minGap)) {
		var v map[string]string
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			r.t.Fatalf("%s: %v", l, err)
		}
		out = append(out, v["violation"])
	}
	return out
}

// allowedFor parses robots.txt as the crawler would and decides path.
func allowedFor(body, path string) bool {
	return robots.Parse([]byte(body)).For("CorpusBot").Allowed(path)
}

func TestDisallowedFeedRuleLiftedOnDayTwo(t *testing.T) {
	r := newRig(t)
	day1 := r.get("http://203.0.113.2/robots.txt")
	if day1.status != 200 || allowedFor(day1.body, "/feed/") || !allowedFor(day1.body, "/posts/one") {
		t.Fatalf("day 1 robots.txt (%d) should disallow /feed/ only:\n%s", day1.status, day1.body)
	}
	if !strings.Contains(day1.body, "User-agent: CorpusBot\nDisallow: /feed\n") {
		t.Errorf("day 1 robots.txt lacks the rule as the issue words it:\n%s", day1.body)
	}
	r.control("POST", "/day?n=2")
	day2 := r.get("http://203.0.113.2/robots.txt", "If-None-Match", day1.header.Get("ETag"))
	if day2.status != 200 || !allowedFor(day2.body, "/feed/") {
		t.Fatalf("day 2 robots.txt (%d) should allow /feed/:\n%s", day2.status, day2.body)
	}
	if feed := r.get("http://203.0.113.2/feed/"); feed.status != 200 || !strings.Contains(feed.body, "http://203.0.113.2/posts/three") {
		t.Errorf("blog2 feed: %d\n%s", feed.status, feed.body)
	}
}

func TestNewPostsByDay(t *testing.T) {
	r := newRig(t)
	feed1 := r.get("http://203.0.113.1/feed/")
	sm1 := r.get("http://203.0.113.3/sitemap.xml")
	if got := r.get("http://203.0.113.1/posts/four").status; got != 404 {
		t.Errorf("day 1: a day-2 post answers %d, want 404", got)
	}
	if strings.Contains(feed1.body, "/posts/four") {
		t.Error("day 1 feed lists a day-2 post")
	}
	r.control("POST", "/day?n=2")
	if got := r.get("http://203.0.113.1/posts/four").status; got != 200 {
		t.Errorf("day 2: the day-2 post answers %d", got)
	}
	if got := r.get("http://203.0.113.1/posts/five").status; got != 404 {
		t.Errorf("day 2: a day-3 post answers %d", got)
	}
	changed := r.get("http://203.0.113.1/feed/", "If-None-Match", feed1.header.Get("ETag"))
	if changed.status != 200 || !strings.Contains(changed.body, "http://203.0.113.1/posts/four") {
		t.Errorf("day 2 feed to a conditional request: %d, want 200 with the new post", changed.status)
	}
	if lm := changed.header.Get("Last-Modified"); lm != dayDate(2).Format(http.TimeFormat) {
		t.Errorf("day 2 feed Last-Modified %q", lm)
	}
	same := r.get("http://203.0.113.3/sitemap.xml", "If-None-Match", sm1.header.Get("ETag"))
	if same.status != 304 {
		t.Errorf("an unchanged sitemap on day 2: %d, want 304", same.status)
	}
	r.control("POST", "/day?n=3")
	if got := r.get("http://203.0.113.1/posts/five").status; got != 200 {
		t.Errorf("day 3: the day-3 post answers %d", got)
	}
}

// TestFaultsStrikeOnceThenHeal: every fault of the manifest answers its
// first request as described, with its Retry-After, and the next one 200.
func TestFaultsStrikeOnceThenHeal(t *testing.T) {
	r := newRig(t)
	m := r.manifest()
	if len(m.Faults) != 6 {
		t.Fatalf("%d faults, want 6: %+v", len(m.Faults), m.Faults)
	}
	for _, f := range m.Faults {
		first := r.get(f.URL)
		switch {
		case f.Kind == "reset":
			if first.err == nil {
				t.Errorf("%s: answered %d, want a dropped connection", f.URL, first.status)
			}
		case first.status != f.Status:
			t.Errorf("%s: first answer %d, want %d", f.URL, first.status, f.Status)
		case f.RetryAfter > 0 && first.header.Get("Retry-After") != strconv.Itoa(f.RetryAfter):
			t.Errorf("%s: Retry-After %q, want %d", f.URL, first.header.Get("Retry-After"), f.RetryAfter)
		case f.RetryAfter == 0 && first.header.Get("Retry-After") != "":
			t.Errorf("%s: Retry-After %q, want none", f.URL, first.header.Get("Retry-After"))
		}
		for i := range 2 {
			if again := r.get(f.URL); again.status != 200 {
				t.Errorf("%s: answer %d after the fault: %d %v", f.URL, i+2, again.status, again.err)
			}
		}
	}
	// Switching days does not bring a fault back.
	r.control("POST", "/day?n=2")
	for _, f := range m.Faults {
		if again := r.get(f.URL); again.status != 200 {
			t.Errorf("%s on day 2: %d %v", f.URL, again.status, again.err)
		}
	}
	recorded := r.requests()
	if len(recorded) != 4*len(m.Faults) {
		t.Errorf("%d requests recorded, want %d", len(recorded), 4*len(m.Faults))
	}
	i := slices.IndexFunc(recorded, func(l requestLine) bool { return l.Host == "203.0.113.6" && l.URI == "/posts/one" })
	if i < 0 || recorded[i].Status != 0 || recorded[i].End == "" {
		t.Errorf("the reset should be recorded, ended, with status 0: %+v", recorded[i])
	}
}

// TestHealedRobotsIsTheHostsRobots: after blog8's robots.txt failure, the
// server-side checker judges the blog by the healed file, so a crawler that
// waited for it is clean, and one that did not wait is caught.
func TestHealedRobotsIsTheHostsRobots(t *testing.T) {
	r := newRig(t)
	if a := r.get("http://203.0.113.8/posts/one"); a.status != 200 {
		t.Fatalf("blog8 post: %d", a.status) // the careless request, before any robots.txt
	}
	time.Sleep(60 * time.Millisecond)
	if a := r.get("http://203.0.113.8/robots.txt"); a.status != 503 {
		t.Fatalf("blog8 robots.txt first: %d", a.status)
	}
	time.Sleep(60 * time.Millisecond)
	healed := r.get("http://203.0.113.8/robots.txt")
	if healed.status != 200 || !strings.Contains(healed.body, "Sitemap: http://203.0.113.8/sitemap-posts.xml") {
		t.Fatalf("blog8 robots.txt healed: %d\n%s", healed.status, healed.body)
	}
	time.Sleep(60 * time.Millisecond)
	if a := r.get("http://203.0.113.8/posts/two"); a.status != 200 {
		t.Fatalf("blog8 post: %d", a.status)
	}
	v := r.violations("50ms")
	want := []string{"203.0.113.8: first request /posts/one, not /robots.txt"}
	if !slices.Equal(v, want) {
		t.Errorf("violations %q, want %q", v, want)
	}
	if v := r.violations("10s"); len(v) != 4 {
		t.Errorf("with min_gap=10s every one of the three gaps is too short, plus the first request: %q", v)
	}
}

// TestWellKnownPaths: blog3 serves a sitemap at /sitemap.xml only, blog4 a
// feed at /?feed=rss2 only; every other well-known path answers 404, and a
// route asked with a query string (a catalogue page) answers 404.
func TestWellKnownPaths(t *testing.T) {
	r := newRig(t)
	m := r.manifest()
	want := []string{"http://203.0.113.3/sitemap.xml", "http://203.0.113.4/?feed=rss2"}
	if !slices.Equal(m.Candidates, want) {
		t.Errorf("candidates %q, want %q", m.Candidates, want)
	}
	for _, host := range []string{"203.0.113.3", "203.0.113.4", "203.0.113.2"} {
		for _, p := range m.WellKnown {
			u := "http://" + host + p
			got := r.get(u).status
			if wantStatus := map[bool]int{true: 200, false: 404}[slices.Contains(want, u)]; got != wantStatus {
				t.Errorf("%s: %d, want %d", u, got, wantStatus)
			}
		}
	}
	if a := r.get("http://203.0.113.4/"); strings.Contains(a.body, "alternate") {
		t.Error("blog4's homepage declares a feed")
	}
	if a := r.get("http://203.0.113.4/?feed=rss2"); !strings.Contains(a.body, "<rss") || !strings.Contains(a.body, "http://203.0.113.4/posts/one") {
		t.Errorf("blog4 /?feed=rss2 is not its feed:\n%s", a.body)
	}
	for _, u := range []string{"http://203.0.113.1/feed/?paged=2", "http://203.0.113.4/?feed=rss2&paged=2", "http://203.0.113.1/?p=1"} {
		if got := r.get(u).status; got != 404 {
			t.Errorf("%s: %d, want 404", u, got)
		}
	}
}

// TestManifestMatchesTheWeb: every post the manifest lists is served from
// its day on, and its "allowed" is what the last day's robots.txt says.
func TestManifestMatchesTheWeb(t *testing.T) {
	r := newRig(t)
	m := r.manifest()
	if len(m.Blogs) != 8 || m.Days != 3 || m.Day != 1 {
		t.Fatalf("manifest: %d blogs, %d days, day %d", len(m.Blogs), m.Days, m.Day)
	}
	r.control("POST", "/day?n=3")
	disallowed := 0
	for _, b := range m.Blogs {
		rb := r.get(b.Home + "robots.txt")
		if rb.status != 200 {
			rb = r.get(b.Home + "robots.txt") // blog8's fails once
		}
		for _, p := range b.Posts {
			u, _ := url.Parse(p.URL)
			if got := allowedFor(rb.body, u.Path); got != p.Allowed {
				t.Errorf("%s: manifest allowed=%v, robots.txt says %v", p.URL, p.Allowed, got)
			}
			if !p.Allowed {
				disallowed++
			}
			if p.Faulted {
				continue
			}
			if a := r.get(p.URL); a.status != 200 || !strings.Contains(a.body, "<article>") {
				t.Errorf("%s: %d", p.URL, a.status)
			}
		}
	}
	if disallowed != 1 {
		t.Errorf("%d disallowed posts, want blog1's draft alone", disallowed)
	}
	if len(m.Disallowed) != 1 || m.Disallowed[0].URL != "http://203.0.113.2/feed/" || m.Disallowed[0].AllowedFrom != 2 {
		t.Errorf("disallowed feeds %+v", m.Disallowed)
	}
}

// TestRequestsByDay: /requests gives each request its day and the headers
// the checks read, with times in RFC 3339 with nanoseconds.
func TestRequestsByDay(t *testing.T) {
	r := newRig(t)
	first := r.get("http://203.0.113.1/feed/")
	r.control("POST", "/day?n=2")
	r.get("http://203.0.113.1/feed/", "If-None-Match", first.header.Get("ETag"), "If-Modified-Since", first.header.Get("Last-Modified"))
	if got := strings.TrimSpace(r.control("GET", "/day")); got != "2" {
		t.Errorf("GET /day: %q", got)
	}
	rs := r.requests()
	if len(rs) != 2 {
		t.Fatalf("%d requests: %+v", len(rs), rs)
	}
	if rs[0].Day != 1 || rs[1].Day != 2 {
		t.Errorf("days %d, %d", rs[0].Day, rs[1].Day)
	}
	if rs[0].IfNoneMatch != "" || rs[1].IfNoneMatch != first.header.Get("ETag") || rs[1].IfModifiedSince == "" {
		t.Errorf("conditional headers: %+v", rs)
	}
	if rs[1].Status != 200 || rs[0].UserAgent != ua || rs[0].Host != "203.0.113.1" || rs[0].URI != "/feed/" {
		t.Errorf("%+v", rs[1])
	}
	for _, l := range rs {
		start, err1 := time.Parse(time.RFC3339Nano, l.Start)
		end, err2 := time.Parse(time.RFC3339Nano, l.End)
		if err1 != nil || err2 != nil || end.Before(start) {
			t.Errorf("times %q %q", l.Start, l.End)
		}
	}
}

func TestIsControl(t *testing.T) {
	for host, want := range map[string]bool{
		"simweb.control": true, "127.0.0.1:4321": true, "[::1]:80": true, "localhost:9": true,
		"203.0.113.1": false, "203.0.113.1:80": false, "control.example": false,
	} {
		if got := isControl(host); got != want {
			t.Errorf("isControl(%q) = %v", host, got)
		}
	}
}

// TestRunPrintsAddressFirst: the first stdout line is the address, the
// server answers there, and it stops when its context ends.
func TestRunPrintsAddressFirst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr binarytest.SyncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--scenario", "days"}, &stdout, &stderr) }()
	var addr string
	for range 200 {
		if line, _, ok := strings.Cut(stdout.String(), "\n"); ok {
			addr = line
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if addr == "" {
		cancel()
		t.Fatalf("no address printed; stderr: %s", stderr.String())
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop")
	}
}

func TestRunRefuses(t *testing.T) {
	for _, args := range [][]string{
		{"--addr", "0.0.0.0:0"},
		{"--addr", "192.0.2.1:80"},
		{"--scenario", "weeks"},
		{"extra"},
	} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
