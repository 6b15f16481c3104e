package fetch_test

import (
	"crypto/tls"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// https and http are two origins (each asks its own robots.txt) of one site
// (one lease), and the certificate is verified for real.
func TestHTTPSOriginOwnRobots(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("secure.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/feed", "application/rss+xml", rss)
	want(t, r.get("https://secure.example/feed", model.PurposeFeed), model.OutcomeFetched)
	want(t, r.get("http://secure.example/feed", model.PurposeFeed), model.OutcomeFetched)
	want(t, r.get("https://secure.example/feed", model.PurposeFeed), model.OutcomeFetched)
	if got := r.uris(h.Name()); !slices.Equal(got, []string{"/robots.txt", "/feed", "/robots.txt", "/feed", "/feed"}) {
		t.Errorf("requests %q", got)
	}
	r.clean(r.s.MinGap)
}

func TestHTTPSUntrustedCertificateFails(t *testing.T) {
	r := newRig(t, true, func(s *config.Settings, o *fetch.Options) {
		s.MinGap = time.Millisecond
		o.TLS = &tls.Config{MinVersion: tls.VersionTLS12} // system roots: the simulated CA is not among them
	})
	r.web.Host("secure.example").Robots("User-agent: *\nAllow: /\n")
	res := r.get("https://secure.example/feed", model.PurposeFeed)
	want(t, res, model.OutcomeDisallowed) // robots.txt unreachable: paused
	if recs := r.records(); len(recs) == 0 || recs[0].Outcome != model.OutcomeError {
		t.Errorf("records %+v", recs)
	}
}

// A site's requests within a visit share one connection, one handshake;
// after VisitDone closes it, the next visit's connection resumes the TLS
// session instead of a full handshake (the fetcher keeps sessions).
func TestHTTPSReusesConnectionAndResumesSession(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("secure.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/feed", "application/rss+xml", rss)
	h.Put("/sitemap.xml", "application/xml", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`)
	want(t, r.get("https://secure.example/feed", model.PurposeFeed), model.OutcomeFetched)
	want(t, r.get("https://secure.example/sitemap.xml", model.PurposeSitemap), model.OutcomeFetched)
	if got := r.web.HandshakesTo("secure.example"); got != (simweb.Handshakes{Full: 1}) {
		t.Fatalf("within the visit (robots.txt, feed, sitemap): %+v, want one full handshake", got)
	}
	r.f.VisitDone("secure.example")
	want(t, r.get("https://secure.example/feed", model.PurposeFeed), model.OutcomeFetched)
	if got := r.web.HandshakesTo("secure.example"); got != (simweb.Handshakes{Full: 1, Resumed: 1}) {
		t.Errorf("after the visit ended: %+v, want the second connection resumed", got)
	}
	if d := r.web.Dials(""); d != 2 {
		t.Errorf("%d dials, want 2", d)
	}
}

// A session cache the caller configures is the one used.
func TestHTTPSKeepsCallersSessionCache(t *testing.T) {
	cache := &countingCache{ClientSessionCache: tls.NewLRUClientSessionCache(4)}
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.TLS.ClientSessionCache = cache
	})
	h := r.web.Host("secure.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/feed", "application/rss+xml", rss)
	want(t, r.get("https://secure.example/feed", model.PurposeFeed), model.OutcomeFetched)
	if cache.puts.Load() == 0 {
		t.Error("the caller's session cache was never given a session")
	}
}

type countingCache struct {
	tls.ClientSessionCache
	puts atomic.Int64
}

func (c *countingCache) Put(key string, s *tls.ClientSessionState) {
	c.puts.Add(1)
	c.ClientSessionCache.Put(key, s)
}
