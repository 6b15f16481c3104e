package simweb

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
)

// Resolve makes name resolve to addr instead of PublicAddr (to test the
// guard with a name that resolves to 10.0.0.1, say).
func (w *Web) Resolve(name string, addr netip.Addr) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.addrs[strings.ToLower(name)] = addr
}

// Resolver returns the simulated DNS: every configured host (and every name
// passed to Resolve) resolves, and every name at all when a Fallback is
// set; anything else is "no such host".
func (w *Web) Resolver() Resolver { return Resolver{w} }

// Resolver is the simulated DNS; it satisfies fetch.Resolver.
type Resolver struct{ w *Web }

// LookupNetIP resolves a simulated name.
func (r Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	if err := r.w.dnsFault(name); err != nil {
		return nil, err
	}
	if a, ok := r.w.addrs[name]; ok {
		return []netip.Addr{a}, nil
	}
	if _, ok := r.w.hosts[name]; ok || r.w.fallback != nil {
		return []netip.Addr{PublicAddr}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// Dial connects PublicAddr to the test servers on loopback (port 443 to the
// https one, any other port to the plain one) and refuses every other
// address, so a test can never reach the real network. Every call is counted
// (Dials), refused or not.
func (w *Web) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	w.dials.add(address)
	ap, err := netip.ParseAddrPort(address)
	if err != nil || ap.Addr().Unmap() != PublicAddr {
		return nil, fmt.Errorf("simweb: no route to %s", address)
	}
	srv := w.srv
	if ap.Port() == 443 {
		srv = w.tls
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", srv.Listener.Addr().String())
}

// Dials is how many times Dial was called for address ("" for all).
func (w *Web) Dials(address string) int { return w.dials.get(address) }

type dialCounts struct {
	mu sync.Mutex
	m  map[string]int
	n  int
}

func (d *dialCounts) add(a string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = make(map[string]int)
	}
	d.m[a]++
	d.n++
}

func (d *dialCounts) get(a string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a == "" {
		return d.n
	}
	return d.m[a]
}
