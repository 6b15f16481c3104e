package simweb

import (
	"context"
	"fmt"
	"net"
	"net/netip"
)

// Addr is the loopback address of the plain-http test server, for worker
// processes that fetch from this web through Remote.
func (w *Web) Addr() string { return w.srv.Listener.Addr().String() }

// Remote is a simulated web served by another process (Web.Addr there):
// every name resolves to PublicAddr, and Dial routes PublicAddr to that
// address on loopback and refuses everything else. It is how a cluster
// test's worker processes share one web whose server sees, and checks,
// the requests of all of them. Plain http only.
type Remote struct{ Addr string }

// LookupNetIP resolves every name to PublicAddr; it satisfies fetch.Resolver.
func (Remote) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{PublicAddr}, nil
}

// Dial connects PublicAddr to the remote web.
func (r Remote) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || ap.Addr().Unmap() != PublicAddr || ap.Port() == 443 {
		return nil, fmt.Errorf("simweb: no route to %s", address)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", r.Addr)
}
