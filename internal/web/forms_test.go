package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/clientip"
)

func TestParseSite(t *testing.T) {
	ok := map[string]string{
		"example.com":                         "example.com",
		"  Example.COM  ":                     "example.com",
		"blog.example.com":                    "example.com",
		"https://blog.example.com/about?x=1":  "example.com",
		"http://www.example.co.uk:8080/":      "example.co.uk",
		"example.com.":                        "example.com",
		"example.com/blog":                    "example.com",
		"alice.github.io":                     "alice.github.io",
		"https://carol.blogspot.com/2026/01/": "carol.blogspot.com",
		"bücher.example":                      "xn--bcher-kva.example",
		"xn--bcher-kva.example":               "xn--bcher-kva.example",
		"HTTPS://A.B.Example.Org":             "example.org",
	}
	for in, want := range ok {
		got, err := ParseSite(in)
		if err != nil || got != want {
			t.Errorf("ParseSite(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                                  "Enter a site name",
		"   ":                               "Enter a site name",
		"localhost":                         "full site name",
		"ftp://example.com":                 "Only http and https",
		"192.0.2.1":                         "IP address",
		"http://[2001:db8::1]/":             "IP address",
		"exa mple.com":                      "no spaces",
		"github.io":                         "public suffix",
		"co.uk":                             "public suffix",
		"-bad.example.com":                  "hyphen",
		"bad_name.example.com":              "letters, digits, hyphens",
		"a..example.com":                    "empty or over-long",
		"https://user:pw@example.com":       "user name",
		"http://":                           "site name or a web address",
		strings.Repeat("a", 64) + ".com":    "over-long",
		strings.Repeat("a.", 130) + "com":   "longer than DNS allows",
		strings.Repeat("x", MaxSiteInput+1): "too long",
	}
	for in, want := range bad {
		_, err := ParseSite(in)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Msg, want) {
			t.Errorf("ParseSite(%.40q) = %v; want an input error containing %q", in, err, want)
		}
	}
}

func FuzzParseSite(f *testing.F) {
	for _, s := range []string{"example.com", "https://blog.example.co.uk/x", "github.io", "bücher.example", "[::1]", "http://a:b@c", "xn--", "a.-b.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		site, err := ParseSite(in)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Msg == "" {
				t.Fatalf("error %v is not an InputError", err)
			}
			return
		}
		// A site is its own site: parsing it again changes nothing, and it
		// is a valid lowercase host name.
		again, err := ParseSite(site)
		if err != nil || again != site {
			t.Fatalf("ParseSite(%q) = %q, but ParseSite(%q) = %q, %v", in, site, site, again, err)
		}
		if err := checkHostname(site); err != nil || strings.ToLower(site) != site {
			t.Fatalf("ParseSite(%q) = %q: not a host name", in, site)
		}
	})
}

func TestOptOutPausesWholeSite(t *testing.T) {
	r := newRig(t)
	res := r.post("/opt-out", url.Values{"site": {"https://blog.alpha.example/some/post"}})
	if res.Code != 200 || !strings.Contains(res.Body, "alpha.example is opted out") || !strings.Contains(res.Body, "2 sources paused now") {
		t.Fatalf("%d\n%s", res.Code, res.Body)
	}
	if !r.data.SourcePaused(r.ids["alpha"]) || !r.data.SourcePaused(r.ids["alpha-blog"]) || r.data.SourcePaused(r.ids["beta"]) {
		t.Error("the opt-out did not pause exactly the site's sources")
	}
	if !r.data.SiteOptedOut("alpha.example") {
		t.Error("site not recorded as opted out")
	}
	// A source found later starts paused.
	id := r.data.AddSource("https://new.alpha.example/", testNow)
	if !r.data.SourcePaused(id) {
		t.Error("a later source of an opted-out site is not paused")
	}
	// Again: idempotent, says so.
	res = r.post("/opt-out", url.Values{"site": {"alpha.example"}})
	if res.Code != 200 || !strings.Contains(res.Body, "0 sources paused now, 3 already paused") {
		t.Errorf("second opt-out: %d %s", res.Code, res.Body)
	}
	// The coverage page counts them, the source page says so.
	if !strings.Contains(r.get("/sources/alpha.example").Body, "This site has opted out") {
		t.Error("source page does not show the opt-out")
	}
	// A site we do not know yet is recorded too.
	res = r.post("/opt-out", url.Values{"site": {"unknown.example"}})
	if res.Code != 200 || !r.data.SiteOptedOut("unknown.example") {
		t.Errorf("unknown site: %d", res.Code)
	}
}

func TestOptOutInputErrors(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		form url.Values
		code int
		want string
	}{
		{url.Values{"site": {""}}, 400, "Enter a site name"},
		{url.Values{}, 400, "Enter a site name"},
		{url.Values{"site": {"github.io"}}, 400, "public suffix"},
		{url.Values{"site": {"10.0.0.1"}}, 400, "IP address"},
		{url.Values{"site": {"<script>x</script>.com"}}, 400, "site name"},
		{url.Values{"site": {strings.Repeat("a", 3000)}}, 400, "too long"},
		{url.Values{"site": {strings.Repeat("a", 9000)}}, 413, "Too much data"},
	}
	for _, c := range cases {
		res := r.post("/opt-out", c.form)
		if res.Code != c.code || !strings.Contains(res.Body, c.want) {
			t.Errorf("%.60v: %d, want %d with %q", c.form, res.Code, c.code, c.want)
		}
		if strings.Contains(res.Body, "<script>x") {
			t.Errorf("input echoed unescaped")
		}
	}
	if r.data.SiteOptedOut("github.io") {
		t.Error("a public suffix was opted out")
	}
}

func TestCrossOriginPostRejected(t *testing.T) {
	r := newRig(t)
	for name, set := range map[string]func(*http.Request){
		"sec-fetch-site cross-site": func(q *http.Request) { q.Header.Set("Sec-Fetch-Site", "cross-site") },
		"origin of another host":    func(q *http.Request) { q.Header.Set("Origin", "https://evil.example") },
	} {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/opt-out", "/claim"} {
				q := httptest.NewRequest(http.MethodPost, path, strings.NewReader("site=beta.example"))
				q.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				set(q)
				res := r.do(q)
				if res.Code != http.StatusForbidden || !strings.Contains(res.Body, "sent from another site") {
					t.Errorf("%s: %d %s", path, res.Code, res.Body)
				}
			}
			if r.data.SiteOptedOut("beta.example") {
				t.Error("a cross-origin POST took effect")
			}
		})
	}
	// Same origin by Origin header (as older browsers send) passes.
	q := httptest.NewRequest(http.MethodPost, "http://example.com/opt-out", strings.NewReader("site=beta.example"))
	q.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	q.Header.Set("Origin", "http://example.com")
	if res := r.do(q); res.Code != 200 || !r.data.SiteOptedOut("beta.example") {
		t.Errorf("same-origin POST: %d", res.Code)
	}
}

func TestLimiter(t *testing.T) {
	c := &clock{t: testNow}
	l := newLimiter(RateLimit{Burst: 3, Every: 10 * time.Second}, c.Now, 4)
	for i := range 3 {
		if ok, _ := l.allow("a"); !ok {
			t.Fatalf("request %d refused inside the burst", i)
		}
	}
	ok, wait := l.allow("a")
	if ok || wait != 10*time.Second {
		t.Fatalf("4th: %v %v", ok, wait)
	}
	if ok, _ := l.allow("b"); !ok {
		t.Fatal("another client is limited by the first")
	}
	c.Add(5 * time.Second)
	if ok, wait := l.allow("a"); ok || wait != 5*time.Second {
		t.Fatalf("half refilled: %v %v", ok, wait)
	}
	c.Add(5 * time.Second)
	if ok, _ := l.allow("a"); !ok {
		t.Fatal("not refilled after Every")
	}
	// The table stays bounded however many clients come.
	for i := range 100 {
		l.allow(strings.Repeat("k", i+1))
	}
	if n := len(l.buckets); n > 4 {
		t.Fatalf("%d buckets kept, bound 4", n)
	}
}

func TestClientKey(t *testing.T) {
	for addr, want := range map[string]string{
		"198.51.100.7:1234":          "198.51.100.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[::ffff:198.51.100.7]:1":    "198.51.100.7",
		"junk":                       "junk",
	} {
		if got := (&Server{}).clientKey(&http.Request{RemoteAddr: addr}); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestRateLimitedForm(t *testing.T) {
	r := newRig(t, func(o *Options) { o.FormLimit = RateLimit{Burst: 2, Every: time.Minute} })
	for i := range 2 {
		if res := r.post("/opt-out", url.Values{"site": {"beta.example"}}); res.Code != 200 {
			t.Fatalf("request %d: %d", i, res.Code)
		}
	}
	res := r.post("/opt-out", url.Values{"site": {"beta.example"}})
	if res.Code != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "60" || !strings.Contains(res.Body, "Wait 60 seconds") {
		t.Fatalf("%d %q", res.Code, res.Header.Get("Retry-After"))
	}
	// Another address is not affected; reading pages is never limited.
	q := httptest.NewRequest(http.MethodPost, "/claim", strings.NewReader("site=beta.example"))
	q.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	q.RemoteAddr = "203.0.113.9:5555"
	if res := r.do(q); res.Code != http.StatusSeeOther {
		t.Errorf("other client: %d", res.Code)
	}
	if res := r.get("/opt-out"); res.Code != 200 {
		t.Errorf("GET limited: %d", res.Code)
	}
	r.clock.Add(time.Minute)
	if res := r.post("/opt-out", url.Values{"site": {"beta.example"}}); res.Code != 200 {
		t.Errorf("after a minute: %d", res.Code)
	}
}

// TestRateLimitBehindProxy: behind a trusted reverse proxy every visitor
// has its own bucket (the address the proxy forwarded); behind an
// untrusted one, X-Forwarded-For is ignored and all share the proxy's.
func TestRateLimitBehindProxy(t *testing.T) {
	trusted, err := clientip.ParseTrusted("10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	send := func(r *rig, peer, forwarded string) int {
		req := httptest.NewRequest(http.MethodPost, "/opt-out", strings.NewReader(url.Values{"site": {"beta.example"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("X-Forwarded-For", forwarded)
		req.RemoteAddr = peer
		return r.do(req).Code
	}
	limit := func(o *Options) {
		o.FormLimit = RateLimit{Burst: 1, Every: time.Hour}
		o.Proxies = clientip.Resolver{Trusted: trusted}
	}

	r := newRig(t, limit)
	if code := send(r, "10.1.2.3:5000", "203.0.113.1"); code != 200 {
		t.Fatalf("first visitor: %d", code)
	}
	if code := send(r, "10.1.2.3:5000", "203.0.113.2"); code != 200 {
		t.Fatalf("second visitor behind the trusted proxy shares the first one's bucket: %d", code)
	}
	if code := send(r, "10.1.2.3:5000", "203.0.113.1"); code != http.StatusTooManyRequests {
		t.Fatalf("first visitor again: %d, want 429", code)
	}
	// A client that is not a trusted proxy cannot pick its bucket.
	if code := send(r, "198.51.100.9:1", "203.0.113.77"); code != 200 {
		t.Fatalf("direct client: %d", code)
	}
	if code := send(r, "198.51.100.9:1", "203.0.113.78"); code != http.StatusTooManyRequests {
		t.Fatalf("a direct client escaped its bucket by writing X-Forwarded-For: %d", code)
	}

	// The same proxy, not trusted: every visitor behind it shares its bucket.
	u := newRig(t, func(o *Options) { o.FormLimit = RateLimit{Burst: 1, Every: time.Hour} })
	if code := send(u, "10.1.2.3:5000", "203.0.113.1"); code != 200 {
		t.Fatalf("untrusted proxy, first: %d", code)
	}
	if code := send(u, "10.1.2.3:5000", "203.0.113.2"); code != http.StatusTooManyRequests {
		t.Fatalf("untrusted proxy: X-Forwarded-For believed: %d", code)
	}
}
