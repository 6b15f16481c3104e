package simweb_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"testing"

	"corpus.blog/corpusbot/internal/simweb"
)

// tlsClient reaches the simulated https server; cache (may be nil) keeps
// its sessions.
func tlsClient(w *simweb.Web, cache tls.ClientSessionCache) *http.Client {
	cfg := w.ClientTLS()
	cfg.ClientSessionCache = cache
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig: cfg,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return w.Dial(ctx, network, simweb.PublicAddr.String()+":443")
		},
	}}
}

// The server counts every handshake by host, and tells a resumed one (the
// client kept the session) from a full one.
func TestHandshakesCountedFullAndResumed(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	w.Host("a.example").Put("/", "text/html", "<p>a</p>")
	w.Host("b.example").Put("/", "text/html", "<p>b</p>")

	resuming := tlsClient(w, tls.NewLRUClientSessionCache(8))
	for range 3 {
		if r := get(t, resuming, "https://a.example/"); r.StatusCode != 200 || r.TLS == nil {
			t.Fatalf("https: %d, TLS %v", r.StatusCode, r.TLS)
		}
		resuming.CloseIdleConnections() // the next request dials again
	}
	// Two requests on one connection: one handshake.
	forgetful := tlsClient(w, nil)
	get(t, forgetful, "https://b.example/")
	get(t, forgetful, "https://b.example/")
	forgetful.CloseIdleConnections()
	get(t, forgetful, "https://b.example/")
	get(t, client(w), "http://b.example/") // plain http: no handshake

	if got, want := w.HandshakesTo("a.example"), (simweb.Handshakes{Full: 1, Resumed: 2}); got != want {
		t.Errorf("a.example: %+v, want %+v", got, want)
	}
	if got, want := w.HandshakesTo("b.example"), (simweb.Handshakes{Full: 2}); got != want {
		t.Errorf("b.example: %+v, want %+v", got, want)
	}
	if got := w.Handshakes(); got.Full != 3 || got.Resumed != 2 || got.Total() != 5 {
		t.Errorf("all hosts: %+v", got)
	}
}

// Under CountOnly the totals are kept, not the hosts.
func TestHandshakesCountOnly(t *testing.T) {
	w := simweb.New(simweb.CountOnly())
	defer w.Close()
	w.Host("a.example").Put("/", "text/html", "<p>a</p>")
	get(t, tlsClient(w, nil), "https://a.example/")
	if got := w.Handshakes(); got.Full != 1 {
		t.Errorf("total %+v", got)
	}
	if got := w.HandshakesTo("a.example"); got.Total() != 0 {
		t.Errorf("per host under CountOnly: %+v", got)
	}
}
