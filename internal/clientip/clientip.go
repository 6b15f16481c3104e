// Package clientip finds the address of the client behind the HTTP
// server's reverse proxies: X-Forwarded-For is believed only as far as
// proxies the operator trusts wrote it.
package clientip

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ParseTrusted reads the trusted proxies (TRUSTED_PROXIES) as
// ParseNetworks reads a list of networks. Empty means none is trusted.
func ParseTrusted(s string) ([]netip.Prefix, error) {
	return parseList(s, "trusted proxy")
}

// ParseNetworks reads a list of networks (METRICS_ALLOWED_NETWORKS): CIDR
// prefixes or bare addresses (a bare address is its own /32 or /128),
// separated by commas or spaces. Empty means none. IPv4-mapped IPv6 forms
// are read as IPv4, as ClientAddr reads the addresses it checks.
func ParseNetworks(s string) ([]netip.Prefix, error) {
	return parseList(s, "network")
}

// parseList reads a list of prefixes, naming each bad one as a what.
func parseList(s, what string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		p, err := parsePrefix(field)
		if err != nil {
			return nil, fmt.Errorf("%s %q: want a CIDR prefix or an IP address", what, field)
		}
		out = append(out, p)
	}
	return out, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		if a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("zone in %q", s)
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a := p.Addr(); a.Is4In6() {
		if p.Bits() < 96 {
			return netip.Prefix{}, fmt.Errorf("%q reaches outside IPv4-mapped space", s)
		}
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}

// Resolver says which address a request came from.
type Resolver struct {
	Trusted []netip.Prefix // the proxies whose X-Forwarded-For is believed
}

// ClientAddr is the request's client address. It is the direct peer's
// (RemoteAddr) unless that peer is a trusted proxy; then X-Forwarded-For is
// walked from the right, each trusted hop skipped, and the first untrusted
// address is the client: entries further left were written by the client or
// by proxies nobody vouches for, so a client that sends its own
// X-Forwarded-For cannot choose the address it is taken for. A malformed
// entry stops the walk at the last address read well (the hop that wrote
// the garbage). The zero Addr means RemoteAddr itself is not an address.
func (res Resolver) ClientAddr(r *http.Request) netip.Addr {
	peer, ok := parseHop(r.RemoteAddr)
	if !ok {
		return netip.Addr{}
	}
	if !res.trusts(peer) {
		return peer
	}
	hops := forwardedFor(r.Header)
	last := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			return last
		}
		if !res.trusts(a) {
			return a
		}
		last = a
	}
	return last
}

// ClientString is ClientAddr as text for logs, or RemoteAddr as given when
// that is not an address (a Unix socket's peer).
func (res Resolver) ClientString(r *http.Request) string {
	if a := res.ClientAddr(r); a.IsValid() {
		return a.String()
	}
	return r.RemoteAddr
}

func (res Resolver) trusts(a netip.Addr) bool {
	for _, p := range res.Trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedFor lists the X-Forwarded-For entries in order, over however
// many header lines carried them (a proxy may add a line of its own rather
// than append to the last).
func forwardedFor(h http.Header) []string {
	var out []string
	for _, line := range h.Values("X-Forwarded-For") {
		for _, e := range strings.Split(line, ",") {
			out = append(out, strings.TrimSpace(e))
		}
	}
	return out
}

// parseHop reads an address as a hop writes it: bare, or with a port
// (1.2.3.4:80, [2001:db8::1]:443), IPv4-mapped IPv6 unmapped and any zone
// dropped (a zone names an interface of the proxy, not the client).
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err2 := netip.ParseAddrPort(s)
		if err2 != nil {
			// [2001:db8::1] without a port.
			if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
				if a, err = netip.ParseAddr(s[1 : len(s)-1]); err != nil {
					return netip.Addr{}, false
				}
			} else {
				return netip.Addr{}, false
			}
		} else {
			a = ap.Addr()
		}
	}
	return a.Unmap().WithZone(""), true
}

// Identified reports whether ClientAddr(r) may be taken for the client's
// own address. It may unless the request says it was forwarded for
// someone else (X-Forwarded-For, Forwarded or X-Real-IP) and ClientAddr
// could not follow that through trusted proxies: the peer is not a trusted
// proxy (a reverse proxy the operator did not list in TRUSTED_PROXIES, on
// loopback say, through which every visitor would look local), or a
// trusted proxy said so in a header other than X-Forwarded-For. Whoever
// the request came from is then unknown, and nothing that depends on who
// it is (/metrics) is granted.
func (res Resolver) Identified(r *http.Request) bool {
	h := r.Header
	if len(h.Values("X-Forwarded-For")) == 0 && len(h.Values("Forwarded")) == 0 && len(h.Values("X-Real-Ip")) == 0 {
		return true
	}
	peer, ok := parseHop(r.RemoteAddr)
	if !ok || !res.trusts(peer) {
		return false
	}
	return len(forwardedFor(h)) > 0
}
