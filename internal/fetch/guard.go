package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// ErrPrivateAddress is returned when a target resolves to an address the
// crawler must not reach (loopback, private, link-local, CGNAT, unspecified,
// multicast) and ALLOW_PRIVATE is off.
var ErrPrivateAddress = errors.New("private address refused")

var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network", unspecified
	netip.MustParsePrefix("10.0.0.0/8"),    // private
	netip.MustParsePrefix("100.64.0.0/10"), // CGNAT
	netip.MustParsePrefix("127.0.0.0/8"),   // loopback
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.0.0.0/24"), // IETF protocol assignments
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("224.0.0.0/4"),   // multicast
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, broadcast
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("fc00::/7"),       // unique local
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("ff00::/8"),       // multicast
}

// Refused reports whether the guard refuses a.  IPv4-mapped IPv6 addresses
// (::ffff:10.0.0.1) are judged as the IPv4 address they carry.
func Refused(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// guardControl is a net.Dialer Control func: it runs after DNS, on the very
// address about to be connected, so nothing reaches a refused address
// whatever the name said.
func guardControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("guard %s: %w", address, err)
	}
	if Refused(ap.Addr()) {
		return fmt.Errorf("dial %s: %w", address, ErrPrivateAddress)
	}
	return nil
}

// Resolver turns a host name into addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc connects to an address that has already passed the guard.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// guardedDialer resolves, guards every address, then dials them in turn.
// Resolving here rather than in net.Dialer lets tests substitute the
// resolver and the network while the guard itself stays on.
type guardedDialer struct {
	resolver     Resolver
	dial         DialFunc
	allowPrivate bool
}

func (g *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = g.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	var errs []error
	for _, a := range addrs {
		if !g.allowPrivate && Refused(a) {
			errs = append(errs, fmt.Errorf("dial %s (%s): %w", address, a, ErrPrivateAddress))
			continue
		}
		c, err := g.dial(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	return nil, errors.Join(errs...)
}
