package simweb_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
)

const ua = "CorpusBot/1.0 (+https://corpus.blog/crawler)"

// client is a careless client on the simulated network, to show that the
// checks catch what a careless fetcher does.
func client(w *simweb.Web) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (netConn, error) {
			return w.Dial(ctx, network, simweb.PublicAddr.String()+":80")
		},
	}}
}

func get(t *testing.T, c *http.Client, url string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestResourceConditional(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	h := w.Host("a.example")
	res := h.Put("/feed", "application/rss+xml", "<rss/>")
	c := client(w)
	first := get(t, c, h.URL("/feed"))
	etag, lm := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
	if first.StatusCode != 200 || etag == "" || lm == "" {
		t.Fatalf("first: %d %q %q", first.StatusCode, etag, lm)
	}
	if r := get(t, c, h.URL("/feed"), "If-None-Match", etag); r.StatusCode != 304 {
		t.Errorf("If-None-Match: %d", r.StatusCode)
	}
	if r := get(t, c, h.URL("/feed"), "If-Modified-Since", lm); r.StatusCode != 304 {
		t.Errorf("If-Modified-Since: %d", r.StatusCode)
	}
	if r := get(t, c, h.URL("/feed"), "If-None-Match", `"other"`, "If-Modified-Since", lm); r.StatusCode != 200 {
		t.Errorf("a wrong ETag must win over a matching date: %d", r.StatusCode)
	}
	res.Update("<rss>new</rss>", simweb.ModTime.Add(time.Hour))
	if r := get(t, c, h.URL("/feed"), "If-None-Match", etag); r.StatusCode != 200 {
		t.Errorf("after update: %d", r.StatusCode)
	}
	if full, not := res.Counts(); full != 3 || not != 2 {
		t.Errorf("counts %d %d", full, not)
	}
}

func TestResolverAndDial(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	w.Host("known.example")
	w.Resolve("inside.example", netip.MustParseAddr("10.0.0.1"))
	r := w.Resolver()
	if a, err := r.LookupNetIP(context.Background(), "ip", "KNOWN.example."); err != nil || a[0] != simweb.PublicAddr {
		t.Errorf("known: %v %v", a, err)
	}
	if a, err := r.LookupNetIP(context.Background(), "ip", "inside.example"); err != nil || a[0].String() != "10.0.0.1" {
		t.Errorf("inside: %v %v", a, err)
	}
	if _, err := r.LookupNetIP(context.Background(), "ip", "unknown.example"); err == nil {
		t.Error("unknown name resolved")
	}
	// Only the fake public address is routed; nothing reaches a real network.
	for _, a := range []string{"10.0.0.1:80", "127.0.0.1:80", "8.8.8.8:53"} {
		if c, err := w.Dial(context.Background(), "tcp", a); err == nil {
			c.Close()
			t.Errorf("dialled %s", a)
		}
	}
	if w.Dials("") != 3 {
		t.Errorf("%d dials counted", w.Dials(""))
	}
}

func TestViolationsCatchCarelessClient(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	h := w.Host("a.blog.example")
	h.Robots("User-agent: *\nDisallow: /private\n")
	h.Handle("/slow", simweb.Slow(100*time.Millisecond, nil, simweb.NewResource("text/html", "<html>")))
	w.Host("b.blog.example").Put("/p", "text/html", "<html>")
	c := client(w)
	get(t, c, h.URL("/private/x"), "User-Agent", "Mozilla/5.0", "Cookie", "a=b")
	var wg sync.WaitGroup
	wg.Go(func() { get(t, c, h.URL("/slow"), "User-Agent", ua) })
	time.Sleep(20 * time.Millisecond)
	get(t, c, "http://b.blog.example/p", "User-Agent", ua) // same site, while /slow is in flight
	wg.Wait()
	v := strings.Join(w.Violations(ua, "CorpusBot", func(string) time.Duration { return time.Second }), "\n")
	for _, want := range []string{
		"a.blog.example: first request /private/x, not /robots.txt",
		"a.blog.example: disallowed /private/x fetched",
		`User-Agent ["Mozilla/5.0"]`,
		"Cookie",
		"2 requests in flight",
		"gap",
		"b.blog.example: first request /p",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("violations miss %q:\n%s", want, v)
		}
	}
}

func TestFaults(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	h := w.Host("f.example")
	h.Handle("/429", simweb.TooMany("120"))
	h.Handle("/loop1", simweb.Redirect(302, "/loop2"))
	h.Handle("/loop2", simweb.Redirect(302, "/loop1"))
	h.Put("/sitemap.xml", "text/html", simweb.HTMLPage)
	h.RobotsStatus(503)
	c := client(w)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if r := get(t, c, h.URL("/429")); r.StatusCode != 429 || r.Header.Get("Retry-After") != "120" {
		t.Errorf("429: %d %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := get(t, c, h.URL("/loop1")); r.StatusCode != 302 || r.Header.Get("Location") != "/loop2" {
		t.Errorf("loop: %d", r.StatusCode)
	}
	if r := get(t, c, h.URL("/robots.txt")); r.StatusCode != 503 {
		t.Errorf("robots: %d", r.StatusCode)
	}
	if r := get(t, c, h.URL("/nothing")); r.StatusCode != 404 {
		t.Errorf("missing: %d", r.StatusCode)
	}
	h.Override(simweb.Status(500))
	if r := get(t, c, h.URL("/sitemap.xml")); r.StatusCode != 500 {
		t.Errorf("override: %d", r.StatusCode)
	}
}

func TestClock(t *testing.T) {
	c := simweb.NewClock(time.Unix(0, 0))
	_ = c.Sleep(context.Background(), time.Hour)
	c.Advance(time.Minute)
	if got := c.Now().Sub(time.Unix(0, 0)); got != time.Hour+time.Minute {
		t.Errorf("clock at %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c.Sleep(ctx, time.Hour) == nil {
		t.Error("Sleep ignored a cancelled context")
	}
}

// A body larger than net/http's buffer reaches the client before the
// handler returns: the recorded End must not be later than when the
// client had the whole body, or a client that waits its gap from there
// would be seen asking too soon (a false violation).
func TestEndIsNotAfterTheClientHadTheBody(t *testing.T) {
	body := strings.Repeat("x", 300<<10)
	for name, write := range map[string]func(http.ResponseWriter){
		"Write":       func(rw http.ResponseWriter) { _, _ = rw.Write([]byte(body)) },
		"WriteString": func(rw http.ResponseWriter) { _, _ = io.WriteString(rw, body) },
	} {
		t.Run(name, func(t *testing.T) {
			w := simweb.New()
			defer w.Close()
			w.Host("big.example").Handle("/big", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Content-Length", fmt.Sprint(len(body)))
				write(rw)
				time.Sleep(200 * time.Millisecond) // the handler's goroutine, late to return
			}))
			c := client(w)
			resp, err := c.Get("http://big.example/big")
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			had := time.Now()
			resp.Body.Close()
			if n != int64(len(body)) {
				t.Fatalf("read %d bytes, want %d", n, len(body))
			}
			var rs []simweb.Request
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if rs = w.RequestsTo("big.example"); len(rs) == 1 && !rs[0].End.IsZero() {
					break
				}
			}
			if len(rs) != 1 || rs[0].End.IsZero() {
				t.Fatalf("requests recorded: %+v", rs)
			}
			if rs[0].End.After(had) {
				t.Errorf("End %v is %v after the client had the whole body", rs[0].End, rs[0].End.Sub(had))
			}
			if rs[0].Bytes != int64(len(body)) {
				t.Errorf("Bytes = %d, want %d", rs[0].Bytes, len(body))
			}
		})
	}
}

// Recorded requests share equal headers, and only equal ones: each
// request's header is still the one it sent.
func TestRecordedHeadersAreTheirOwn(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	w.Host("h.example").Put("/p", "text/plain", "x")
	c := client(w)
	sent := [][]string{{"X-Test", "1"}, {"X-Test", "2"}, {"X-Test", "1"}, {"X-Test", "1", "X-Other", "2"}, {"X-Other", "1"}}
	for _, h := range sent {
		get(t, c, "http://h.example/p", h...)
	}
	rs := w.RequestsTo("h.example")
	if len(rs) != len(sent) {
		t.Fatalf("%d requests recorded, want %d", len(rs), len(sent))
	}
	for i, h := range sent {
		for j := 0; j+1 < len(h); j += 2 {
			if got := rs[i].Header.Values(h[j]); len(got) != 1 || got[0] != h[j+1] {
				t.Errorf("request %d: %s = %q, want %q", i, h[j], got, h[j+1])
			}
		}
		if len(h) == 2 && rs[i].Header.Get("X-Other") != "" && h[0] != "X-Other" {
			t.Errorf("request %d: X-Other = %q, never sent", i, rs[i].Header.Get("X-Other"))
		}
	}
}
