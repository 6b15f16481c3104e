package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/idna"
)

// ErrPrivateAddress is returned when a target is one the crawler must not
// reach (loopback, private, link-local, CGNAT, unspecified, multicast, or a
// name reserved for local networks) and ALLOW_PRIVATE is off. It is the
// crawler's own refusal, made before anything was sent: it says nothing of
// the site's answer.
var ErrPrivateAddress = errors.New("private address refused")

// ErrUnresolvedTarget is returned, with PROXY_DNS=local, for a request to
// be handed to a proxy whose host name our resolver cannot resolve: the
// guard cannot judge where the proxy would go, and refuses it. Like
// ErrPrivateAddress it is the crawler's own refusal (GuardRefused), made
// before anything was sent, and says nothing of the site: the proxy, not
// our resolver, would have resolved the name.
var ErrUnresolvedTarget = errors.New("not resolved by our resolver, and PROXY_DNS=local: not handed to the proxy")

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
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64: translates into whatever the local network says
	netip.MustParsePrefix("fc00::/7"),       // unique local
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("ff00::/8"),       // multicast
}

// The IPv6 forms that carry an IPv4 address, which is where a packet sent
// to them ends up (through a translator or a tunnel relay): they are judged
// by the IPv4 address they carry.
var (
	ipv4Compatible = netip.MustParsePrefix("::/96")           // RFC 4291 §2.5.5.1, deprecated: ::a.b.c.d
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 (SIIT): ::ffff:0:a.b.c.d
	nat64          = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052 well-known prefix: 64:ff9b::a.b.c.d
	sixToFour      = netip.MustParsePrefix("2002::/16")       // RFC 3056: 2002:AABB:CCDD::/48
	teredo         = netip.MustParsePrefix("2001::/32")       // RFC 4380: server in bits 32-63, client inverted in 96-127
)

// Refused reports whether the guard refuses a. An IPv6 address that carries
// an IPv4 address — IPv4-mapped (::ffff:10.0.0.1), IPv4-compatible
// (::10.0.0.1), IPv4-translated, NAT64 (64:ff9b::10.0.0.1), 6to4
// (2002:0a00:0001::) — is judged as that IPv4 address; a Teredo address
// (2001:0::/32) is refused when either the server or the client address it
// carries is. A zone (fe80::1%eth0) does not change the verdict.
func Refused(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if !a.IsValid() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	carried, n := carriedIPv4(a)
	for _, v4 := range carried[:n] {
		if Refused(v4) {
			return true
		}
	}
	return false
}

// carriedIPv4 is the IPv4 addresses a carries, n of them (none for an IPv4
// address or a plain IPv6 one).
func carriedIPv4(a netip.Addr) (carried [2]netip.Addr, n int) {
	if !a.Is6() {
		return carried, 0
	}
	b := a.As16()
	switch {
	case ipv4Compatible.Contains(a), ipv4Translated.Contains(a), nat64.Contains(a):
		carried[0] = netip.AddrFrom4([4]byte(b[12:16]))
		return carried, 1
	case sixToFour.Contains(a):
		carried[0] = netip.AddrFrom4([4]byte(b[2:6]))
		return carried, 1
	case teredo.Contains(a):
		client := [4]byte(b[12:16])
		for i := range client {
			client[i] ^= 0xff // RFC 4380 §4: the client's address is stored inverted
		}
		carried[0], carried[1] = netip.AddrFrom4([4]byte(b[4:8])), netip.AddrFrom4(client)
		return carried, 2
	}
	return carried, 0
}

// localNames are the names of hosts of a local network: they never name a
// public site, so they are refused without a lookup, whatever a resolver
// (ours or a proxy's) would say. localhost (RFC 6761 §6.3), .local (mDNS,
// RFC 6762), .internal (reserved by ICANN for private use, 2024),
// home.arpa (RFC 8375), and the suffixes home routers and company
// networks use without owning them, which ICANN will not delegate (.lan,
// .localdomain, .home, .corp, .intranet, .private).
var localNames = []string{"localhost", "local", "internal", "home.arpa",
	"lan", "localdomain", "home", "corp", "intranet", "private"}

// RefusedName reports whether the guard refuses host by its name alone: a
// local name (localhost, or a name under .localhost, .local, .internal,
// home.arpa, .lan, …); a single-label name ("intranet", "nas"), which a
// resolver completes with the local network's search domains and no public
// site has; or a name whose last label is a number ("127.1", "0x7f.1",
// "2130706433"), which is not a name at all but an address in a form that
// many resolvers and proxies read (inet_aton, the URL standard) and we do
// not. An IP address in its usual form is not a name: Refused judges it.
func RefusedName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if _, err := netip.ParseAddr(h); err == nil {
		return false
	}
	for _, n := range localNames {
		if h == n || strings.HasSuffix(h, "."+n) {
			return true
		}
	}
	if !strings.Contains(h, ".") {
		return true
	}
	return numericLabel(h[strings.LastIndexByte(h, '.')+1:])
}

// numericLabel reports whether a host's last label makes it an IPv4
// address to the URL standard's host parser: decimal digits, or 0x and hex
// digits. No top-level domain is one.
func numericLabel(l string) bool {
	if l == "" {
		return false
	}
	digits := "0123456789"
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		l, digits = l[2:], "0123456789abcdefABCDEF"
	}
	return strings.Trim(l, digits) == ""
}

// addressLiteral is host as an IP address when it is one (a trailing dot,
// which no address has but some clients keep, is ignored), so that it is
// judged by its address and never looked up.
func addressLiteral(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(strings.TrimSuffix(host, "."))
	return a, err == nil
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
	// proxyDNS (PROXY_DNS=proxy): a proxied name our resolver cannot
	// resolve is left to the proxy rather than refused, and our resolver
	// is given judgeTimeout to say so.
	proxyDNS     bool
	judgeTimeout time.Duration
}

// proxyJudgeTimeout bounds our resolver's look at a proxied name with
// PROXY_DNS=proxy (or the dial timeout, if shorter). Behind an egress proxy
// our resolver may be a black hole, whose every lookup would run to the
// resolver's own timeouts (5 s a try, two tries) before each request; the
// name is then left to the proxy, as an unresolvable one is.
const proxyJudgeTimeout = 2 * time.Second

// lookup is the addresses of host: host itself when it is an address
// literal, else what the resolver says. A local name is refused before any
// lookup.
func (g *guardedDialer) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := addressLiteral(host); ok {
		return []netip.Addr{a}, nil
	}
	if !g.allowPrivate && RefusedName(host) {
		return nil, fmt.Errorf("%s: a local name: %w", host, ErrPrivateAddress)
	}
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	return addrs, nil
}

func (g *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
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
	return nil, errors.Join(errs...)
}

// judgeTarget is the guard for a request handed to a proxy, which dials the
// target out of our sight: an IP literal is judged by its address, a
// local name is refused, and a name is refused when any address our
// resolver gives for it is refused (the proxy may pick any of them).
//
// A name our resolver cannot resolve cannot be judged. Behind an egress
// proxy that does the DNS, our resolver may know no public name at all:
// with PROXY_DNS=proxy such a name is left to the proxy; with the default,
// local, it is refused with ErrUnresolvedTarget, our own failure, never
// the site's answer (the proxy, not our resolver, would have looked it up).
func (g *guardedDialer) judgeTarget(ctx context.Context, host string) error {
	if g.allowPrivate {
		return nil
	}
	forms, dialled := hostForms(host)
	for _, h := range forms {
		if a, ok := addressLiteral(h); ok {
			if Refused(a) {
				return fmt.Errorf("proxy target %s: %w", host, ErrPrivateAddress)
			}
			return nil
		}
	}
	for _, h := range forms {
		if RefusedName(h) {
			return fmt.Errorf("proxy target %s: a local name: %w", host, ErrPrivateAddress)
		}
	}
	lctx := ctx
	if g.proxyDNS && g.judgeTimeout > 0 {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(ctx, g.judgeTimeout)
		defer cancel()
	}
	addrs, err := g.resolver.LookupNetIP(lctx, "ip", dialled)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no addresses")
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("proxy target %s: %w", host, ctx.Err())
		}
		if g.proxyDNS {
			return nil // the proxy resolves it; what it reaches is its own policy's to judge
		}
		return fmt.Errorf("proxy target %s: %w: %v", host, ErrUnresolvedTarget, err)
	}
	for _, a := range addrs {
		if Refused(a) {
			return fmt.Errorf("proxy target %s (%s): %w", host, a, ErrPrivateAddress)
		}
	}
	return nil
}

// hostForms are the spellings of a URL's host that reach a proxy: the host
// as written and, when it is not ASCII, the forms net/http gives it, IDNA
// with UTS 46 mapping (the CONNECT target and the dialled name, in which
// "localhoſt" is localhost and "１２７。０。０。１" is 127.0.0.1) and plain
// Punycode (the absolute URI of a plain http request). The guard judges
// them all. dialled is the name as the transport dials it, which our
// resolver is asked.
func hostForms(host string) (forms []string, dialled string) {
	forms, dialled = []string{host}, host
	if isASCII(host) {
		return forms, dialled
	}
	if h, err := idna.ToASCII(host); err == nil {
		forms = append(forms, h)
	}
	if h, err := idna.Lookup.ToASCII(host); err == nil {
		forms, dialled = append(forms, h), h
	}
	return forms, dialled
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// proxyRoute is put on each request's context (withProxyRoute); the Proxy
// func notes in it the proxy the transport is about to dial for that
// request, so that the dialer lets exactly that address through unguarded,
// and never a target that merely shares the proxy's address.
type proxyRoute struct {
	mu   sync.Mutex
	addr string // host:port
}

type proxyRouteKey struct{}

func withProxyRoute(ctx context.Context) context.Context {
	return context.WithValue(ctx, proxyRouteKey{}, &proxyRoute{})
}

// noteProxy records on the request's context that its connection goes to
// the proxy at addr.
func noteProxy(ctx context.Context, addr string) {
	if r, ok := ctx.Value(proxyRouteKey{}).(*proxyRoute); ok {
		r.mu.Lock()
		r.addr = addr
		r.mu.Unlock()
	}
}

// toProxy reports whether a dial of addr for the request of ctx is the dial
// of its proxy.
func toProxy(ctx context.Context, addr string) bool {
	r, ok := ctx.Value(proxyRouteKey{}).(*proxyRoute)
	if !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr != "" && r.addr == addr
}
