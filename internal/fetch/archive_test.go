package fetch_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// archiveLog keeps what Options.Archive was given.
type archiveLog struct {
	mu sync.Mutex
	xs []fetch.ArchivedExchange
}

func (a *archiveLog) add(_ context.Context, x fetch.ArchivedExchange) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.xs = append(a.xs, x)
}

func (a *archiveLog) take() []fetch.ArchivedExchange {
	a.mu.Lock()
	defer a.mu.Unlock()
	xs := a.xs
	a.xs = nil
	return xs
}

func archivingRig(t *testing.T) (*rig, *archiveLog) {
	t.Helper()
	log := &archiveLog{}
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) { o.Archive = log.add })
	return r, log
}

// Archive is given the exchange as it went on the wire and the body as
// read: decoded, with the response header still naming the encoding.
func TestArchiveGetsTheExchange(t *testing.T) {
	r, log := archivingRig(t)
	h := r.web.Host("www.kept.example")
	h.Robots("User-agent: *\nAllow: /\n")
	page := "<!doctype html><html><body>" + strings.Repeat("kept words ", 300) + "</body></html>"
	h.Put("/gz", "text/html; charset=utf-8", page).Encode("gzip")
	h.Put("/br", "text/html; charset=utf-8", page).Encode("br")
	h.Put("/feed", "application/rss+xml", rss)

	for _, path := range []string{"/gz", "/br", "/feed"} {
		p := model.PurposePage
		if path == "/feed" {
			p = model.PurposeFeed
		}
		res := r.get(h.URL(path), p)
		want(t, res, model.OutcomeFetched)
		xs := log.take()
		if len(xs) != 1 {
			t.Fatalf("%s: %d exchanges archived, want 1 (robots.txt is not)", path, len(xs))
		}
		x := xs[0]
		if x.Purpose != p || x.URL != h.URL(path) || x.Method != http.MethodGet || x.Status != http.StatusOK || x.Proto != "HTTP/1.1" {
			t.Errorf("%s: %s %s %s %d %s", path, x.Purpose, x.Method, x.URL, x.Status, x.Proto)
		}
		if string(x.Body) != string(res.Body) {
			t.Errorf("%s: archived body is not the body the caller got", path)
		}
		if enc := map[string]string{"/gz": "gzip", "/br": "br"}[path]; enc != "" {
			if string(x.Body) != page || x.ResponseHeader.Get("Content-Encoding") != enc {
				t.Errorf("%s: body %d bytes (want %d, decoded), Content-Encoding %q", path, len(x.Body), len(page), x.ResponseHeader.Get("Content-Encoding"))
			}
		}
		// The request header is the one the server received.
		got := r.web.RequestsTo("www.kept.example")
		seen := got[len(got)-1].Header
		for _, name := range []string{"User-Agent", "Accept", "Accept-Encoding"} {
			if x.RequestHeader.Get(name) == "" || x.RequestHeader.Get(name) != seen.Get(name) {
				t.Errorf("%s: %s archived %q, the server saw %q", path, name, x.RequestHeader.Get(name), seen.Get(name))
			}
		}
		if !x.Fetched.Equal(r.clock.Now()) {
			t.Errorf("%s: fetched at %v, the clock says %v", path, x.Fetched, r.clock.Now())
		}
		host, _, err := net.SplitHostPort(x.RemoteAddr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			t.Errorf("%s: remote address %q, want simweb's loopback listener", path, x.RemoteAddr)
		}
	}
}

// Only a 2xx whose body was read reaches the archive: not a request
// declined before sending, a failure, a redirect hop, a 304, a body of the
// wrong type or too large, robots.txt, a POST or a streamed sitemap.
func TestArchiveOnlyBodiesRead(t *testing.T) {
	r, log := archivingRig(t)
	h := r.web.Host("mixed.example")
	h.Robots("User-agent: *\nDisallow: /private\n")
	h.Put("/p", "text/html", "<html><p>read</p></html>")
	h.Put("/image", "image/png", "\x89PNG")
	h.Put("/big", "text/html", strings.Repeat("x", int(r.s.BodyMax)+1))
	h.Put("/sitemap.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://mixed.example/p</loc></url></urlset>`)
	h.Handle("/moved", simweb.Redirect(http.StatusMovedPermanently, "/p"))
	h.Handle("/gone", simweb.Status(http.StatusGone))
	h.Handle("/busy", simweb.Unavailable("120"))
	h.Handle("/reset", simweb.Reset())

	first := r.get(h.URL("/p"), model.PurposePage)
	want(t, first, model.OutcomeFetched)
	// robots.txt was read first, 200, and is not archived.
	if xs := log.take(); len(xs) != 1 || xs[0].URL != h.URL("/p") {
		t.Fatalf("%d exchanges archived for robots.txt and one page: %+v", len(xs), xs)
	}
	res := r.f.Fetch(context.Background(), fetch.Request{URL: h.URL("/p"), Purpose: model.PurposePage, ETag: first.ETag})
	want(t, res, model.OutcomeUnchanged)
	want(t, r.get(h.URL("/private/x"), model.PurposePage), model.OutcomeDisallowed)
	want(t, r.get(h.URL("/image"), model.PurposePage), model.OutcomeWrongType)
	want(t, r.get(h.URL("/big"), model.PurposePage), model.OutcomeTooLarge)
	want(t, r.get(h.URL("/gone"), model.PurposePage), model.OutcomeStatus)
	want(t, r.get(h.URL("/busy"), model.PurposePage), model.OutcomeStatus)
	want(t, r.get(h.URL("/reset"), model.PurposePage), model.OutcomeError)
	streamed := r.f.Fetch(context.Background(), fetch.Request{URL: h.URL("/sitemap.xml"), Purpose: model.PurposeSitemap,
		Stream: func(_ string, body io.Reader) { _, _ = io.Copy(io.Discard, body) }})
	want(t, streamed, model.OutcomeFetched)
	if xs := log.take(); len(xs) != 0 {
		for _, x := range xs {
			t.Errorf("archived %s %s (%d)", x.Purpose, x.URL, x.Status)
		}
	}

	// A redirect: the hop that answered 301 is not archived, the page it
	// led to is, under its own URL.
	res = r.get(h.URL("/moved"), model.PurposePage)
	want(t, res, model.OutcomeFetched)
	xs := log.take()
	if len(xs) != 1 || xs[0].URL != h.URL("/p") || xs[0].Status != http.StatusOK {
		t.Fatalf("after a redirect, archived %+v", xs)
	}
}

// Through a proxy, the connection's address is the proxy's, not the
// server's: none is given.
func TestArchiveNoAddressThroughProxy(t *testing.T) {
	log := &archiveLog{}
	r, p := proxiedRig(t, false)
	// proxiedRig builds its own fetcher; build one more with the archive,
	// over the same web and proxy.
	f, err := fetch.New(fetch.Options{
		Settings: r.s, Clock: r.clock, Resolver: r.web.Resolver(), Dial: r.web.Dial, TLS: r.web.ClientTLS(), Logger: discard,
		Proxy:   func(*http.Request) (*url.URL, error) { return p.URL(), nil },
		Archive: log.add,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.CloseIdleConnections()
	want(t, f.Fetch(context.Background(), fetch.Request{URL: "http://blog.example/p", Purpose: model.PurposePage}), model.OutcomeFetched)
	xs := log.take()
	if len(xs) != 1 || xs[0].URL != "http://blog.example/p" {
		t.Fatalf("archived %+v", xs)
	}
	if xs[0].RemoteAddr != "" {
		t.Errorf("remote address %q through a proxy, want none", xs[0].RemoteAddr)
	}
	if len(p.askedFor("blog.example")) == 0 {
		t.Error("the proxy was not asked: the test proves nothing")
	}
}

// BenchmarkArchiveHook is one page fetch over loopback without
// Options.Archive and with one that only counts: what the hook costs the
// fetcher (the trace of the connection, the exchange it is handed).
func BenchmarkArchiveHook(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "nil", true: "set"}[on], func(b *testing.B) {
			var n int
			r := newRig(b, false, func(s *config.Settings, o *fetch.Options) {
				if on {
					o.Archive = func(context.Context, fetch.ArchivedExchange) { n++ }
				}
			})
			h := r.web.Host("bench.example")
			h.Robots("User-agent: *\nAllow: /\n")
			h.Put("/p", "text/html; charset=utf-8", simweb.HTMLPage)
			want(b, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched) // robots.txt read and cached
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if res := r.get(h.URL("/p"), model.PurposePage); res.Outcome != model.OutcomeFetched {
					b.Fatal(res.Err)
				}
			}
			b.StopTimer()
			if on && n != b.N+1 {
				b.Fatalf("hook called %d times for %d fetches", n, b.N+1)
			}
		})
	}
}
