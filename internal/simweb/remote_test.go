package simweb_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"corpus.blog/corpusbot/internal/simweb"
)

// TestRemoteRoutesBothSchemes: a client that knows only a Remote (the
// addresses and the CA certificate another process would print) reaches
// the web's hosts over plain http and over https, verified against the
// remote CA, and is refused anything not PublicAddr; without the CA or a
// TLS address, https is refused rather than reached some other way.
func TestRemoteRoutesBothSchemes(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	h := w.Host("a.example")
	h.Put("/", "text/plain", "hello")
	cases := []struct {
		name   string
		remote simweb.Remote
		url    string
		ok     bool
	}{
		{"plain", simweb.Remote{Addr: w.Addr()}, "http://a.example/", true},
		{"https", simweb.Remote{Addr: w.Addr(), TLSAddr: w.TLSAddr(), CA: w.CACertPEM()}, "https://a.example/", true},
		{"https without a TLS address", simweb.Remote{Addr: w.Addr(), CA: w.CACertPEM()}, "https://a.example/", false},
		{"https with another CA", simweb.Remote{Addr: w.Addr(), TLSAddr: w.TLSAddr(), CA: otherCA(t)}, "https://a.example/", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				// The name resolved as a crawler's resolver would.
				ips, err := tc.remote.LookupNetIP(ctx, "ip", "a.example")
				if err != nil {
					return nil, err
				}
				_, port, _ := net.SplitHostPort(addr)
				return tc.remote.Dial(ctx, network, net.JoinHostPort(ips[0].String(), port))
			}}
			if cfg, err := tc.remote.ClientTLS(); err == nil {
				tr.TLSClientConfig = cfg
			}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Get(tc.url)
			if !tc.ok {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("%s reached without a route", tc.url)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "hello" {
				t.Fatalf("%s: %d %q", tc.url, resp.StatusCode, body)
			}
		})
	}
	if _, err := (simweb.Remote{Addr: w.Addr()}).Dial(context.Background(), "tcp", "10.0.0.1:80"); err == nil {
		t.Error("a private address was routed")
	}
	if _, err := (simweb.Remote{}).ClientTLS(); err == nil {
		t.Error("ClientTLS without a CA gave a configuration")
	}
}

// otherCA is another simulated web's authority.
func otherCA(t *testing.T) []byte {
	o := simweb.New()
	t.Cleanup(o.Close)
	return o.CACertPEM()
}
