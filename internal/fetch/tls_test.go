package fetch_test

import (
	"crypto/tls"
	"slices"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
)

// https and http are two origins (each asks its own robots.txt) of one site
// (one lease), and the certificate is verified for real.
func TestHTTPSOriginOwnRobots(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("secure.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/feed", "application/rss+xml", rss)
	want(t, r.get("https://secure.example/feed", fetch.PurposeFeed), fetch.OutcomeFetched)
	want(t, r.get("http://secure.example/feed", fetch.PurposeFeed), fetch.OutcomeFetched)
	want(t, r.get("https://secure.example/feed", fetch.PurposeFeed), fetch.OutcomeFetched)
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
	res := r.get("https://secure.example/feed", fetch.PurposeFeed)
	want(t, res, fetch.OutcomeDisallowed) // robots.txt unreachable: paused
	if recs := r.records(); len(recs) == 0 || recs[0].Outcome != fetch.OutcomeError {
		t.Errorf("records %+v", recs)
	}
}
