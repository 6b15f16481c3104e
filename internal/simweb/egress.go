package simweb

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
)

// EgressProxy stands in for a deployment's egress proxy, on loopback: it
// answers absolute-URI requests itself by relaying them, whatever their
// host, to the simulated web (so that a private target it is asked for is
// asked, and counted, like any other), refuses CONNECT, and records every
// request it is asked, in order, as "GET http://host/path" or
// "CONNECT host:443".
type EgressProxy struct {
	srv   *httptest.Server
	relay *http.Transport
	mu    sync.Mutex
	asked []string
}

// NewEgressProxy starts a proxy in front of w; Close stops it.
func (w *Web) NewEgressProxy() *EgressProxy {
	p := &EgressProxy{relay: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", w.Addr())
		},
		DisableCompression: true,
	}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.asked = append(p.asked, r.Method+" "+r.RequestURI)
		p.mu.Unlock()
		if r.Method == http.MethodConnect || !r.URL.IsAbs() {
			http.Error(rw, "this proxy relays http only", http.StatusForbidden)
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		resp, err := p.relay.RoundTrip(out)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			rw.Header()[k] = v
		}
		rw.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(rw, resp.Body)
	}))
	return p
}

// URL is the proxy's own URL, for a client's Proxy setting.
func (p *EgressProxy) URL() *url.URL {
	u, _ := url.Parse(p.srv.URL)
	return u
}

// Requests is what the proxy was asked, in order.
func (p *EgressProxy) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

// Close stops the proxy.
func (p *EgressProxy) Close() {
	p.srv.Close()
	p.relay.CloseIdleConnections()
}
