// Package verify tells the crawler's own requests from impostors by
// forward-confirmed reverse DNS (FCrDNS), the check site operators run on
// Googlebot and the like: the connecting address's PTR name must lie under
// one of the crawler's domains, and that name must resolve back to the same
// address. Either half alone proves nothing: anyone can set the PTR of
// their own address to crawl.corpus.blog, and anyone can point a name of
// theirs at any address.
package verify

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Resolver is the DNS a check asks; *net.Resolver is one. Tests pass a fake
// so that no test depends on real DNS.
type Resolver interface {
	LookupAddr(ctx context.Context, addr string) ([]string, error)
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Result is the outcome of one check.
type Result struct {
	IP       netip.Addr
	Verified bool
	Name     string   // the confirmed name when Verified
	Names    []string // every PTR name found, without the trailing dot
	Reason   string   // why not, in a few words, when not Verified
}

// Verdict is the one line the command prints.
func (r Result) Verdict() string {
	if r.Verified {
		return fmt.Sprintf("VERIFIED %s is %s (reverse and forward DNS agree)", r.IP, r.Name)
	}
	return fmt.Sprintf("NOT VERIFIED %s: %s", r.IP, r.Reason)
}

// Check runs FCrDNS for ip against the allowed domains (a name matches a
// domain when it equals it or ends in "."+domain, case-insensitively). DNS
// failures are not errors of Check: an address whose lookups fail is simply
// not verified, with the failure as its Reason. Check returns an error only
// for a call that cannot be answered (no domain to check against).
func Check(ctx context.Context, res Resolver, ip netip.Addr, domains []string) (Result, error) {
	ip = ip.Unmap()
	out := Result{IP: ip}
	var allowed []string
	for _, d := range domains {
		if d = normalise(d); d != "" {
			allowed = append(allowed, d)
		}
	}
	if len(allowed) == 0 {
		return out, errors.New("verify: no domain to verify against")
	}
	names, err := res.LookupAddr(ctx, ip.String())
	if err != nil {
		out.Reason = "reverse lookup failed: " + dnsReason(err)
		return out, nil
	}
	for _, n := range names {
		out.Names = append(out.Names, normalise(n))
	}
	if len(out.Names) == 0 {
		out.Reason = "the address has no reverse DNS name"
		return out, nil
	}
	var forwardErr error
	inDomain := false
	for _, name := range out.Names {
		if !under(name, allowed) {
			continue
		}
		inDomain = true
		network := "ip4"
		if ip.Is6() {
			network = "ip6"
		}
		addrs, err := res.LookupNetIP(ctx, network, name)
		if err != nil {
			forwardErr = err
			continue
		}
		for _, a := range addrs {
			if a.Unmap() == ip {
				out.Verified, out.Name = true, name
				return out, nil
			}
		}
	}
	switch {
	case !inDomain:
		out.Reason = fmt.Sprintf("reverse name %s is not under %s", strings.Join(out.Names, ", "), strings.Join(allowed, " or "))
	case forwardErr != nil:
		out.Reason = "forward lookup failed: " + dnsReason(forwardErr)
	default:
		out.Reason = fmt.Sprintf("forward lookup of %s does not include %s", strings.Join(out.Names, ", "), ip)
	}
	return out, nil
}

func normalise(name string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
}

func under(name string, domains []string) bool {
	for _, d := range domains {
		if name == d || strings.HasSuffix(name, "."+d) {
			return true
		}
	}
	return false
}

func dnsReason(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// UserAgentURL is the URL in a user agent, the "+https://…" of
// "CorpusBot/1.0 (+https://corpus.blog/crawler)", or "" when it names none.
func UserAgentURL(ua string) string {
	i := strings.Index(ua, "+http")
	if i < 0 {
		return ""
	}
	raw := ua[i+1:]
	if j := strings.IndexAny(raw, " );"); j >= 0 {
		raw = raw[:j]
	}
	return raw
}

// UserAgentDomain is the host of the URL in a user agent: "corpus.blog" in
// "CorpusBot/1.0 (+https://corpus.blog/crawler)", or "" when it names none.
// It is the default domain to verify against, since the crawler page the
// user agent points to is on the crawler's own domain.
func UserAgentDomain(ua string) string {
	raw := UserAgentURL(ua)
	rest, ok := strings.CutPrefix(raw, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(raw, "http://")
	}
	if !ok {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	if h, _, found := strings.Cut(host, ":"); found {
		host = h
	}
	return normalise(host)
}
