package fetch_test

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// egressProxy is simweb's EgressProxy, closed at the test's end.
type egressProxy struct{ *simweb.EgressProxy }

func newEgressProxy(t testing.TB, web *simweb.Web) egressProxy {
	t.Helper()
	p := web.NewEgressProxy()
	t.Cleanup(p.Close)
	return egressProxy{p}
}

// askedFor is what the proxy was asked of host.
func (p egressProxy) askedFor(host string) []string {
	var out []string
	for _, q := range p.Requests() {
		if strings.HasPrefix(q, "CONNECT "+host+":") || strings.Contains(q, "://"+host+"/") || strings.Contains(q, "://"+host+":") {
			out = append(out, q)
		}
	}
	return out
}

// moreAddrs is a resolver giving some names several addresses, the others
// as the simulated web says.
type moreAddrs struct {
	fetch.Resolver
	names map[string][]netip.Addr
}

func (m moreAddrs) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := m.names[host]; ok {
		return a, nil
	}
	return m.Resolver.LookupNetIP(ctx, network, host)
}

// proxiedRig is a rig whose every request goes through p.
func proxiedRig(t *testing.T, allowPrivate bool) (*rig, egressProxy) {
	t.Helper()
	var p egressProxy
	r := newRig(t, false, func(s *config.Settings, o *fetch.Options) {
		s.AllowPrivate = allowPrivate
		o.Proxy = func(*http.Request) (*url.URL, error) { return p.URL(), nil }
		o.Resolver = moreAddrs{Resolver: o.Resolver, names: map[string][]netip.Addr{
			"mixed.example": {simweb.PublicAddr, netip.MustParseAddr("10.0.0.1")},
		}}
	})
	p = newEgressProxy(t, r.web)
	r.web.Resolve("intranet.example", netip.MustParseAddr("10.0.0.1"))
	r.web.Resolve("v6.example", netip.MustParseAddr("2002:a9fe:a9fe::1"))
	r.web.Resolve("nat64.example", netip.MustParseAddr("64:ff9b::a9fe:a9fe"))
	b := r.web.Host("blog.example")
	b.Robots("User-agent: *\nAllow: /\n")
	b.Put("/p", "text/html", "<html><p>public</p></html>")
	b.Handle("/feed-meta", simweb.Redirect(http.StatusFound, "http://169.254.169.254/latest/meta-data/"))
	b.Handle("/feed-intranet", simweb.Redirect(http.StatusFound, "http://intranet.example/feed"))
	b.Handle("/feed-nat64", simweb.Redirect(http.StatusMovedPermanently, "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/"))
	b.Handle("/feed-local", simweb.Redirect(http.StatusFound, "http://metadata.google.internal/computeMetadata/v1/"))
	b.Handle("/feed-https", simweb.Redirect(http.StatusFound, "https://10.1.2.3/feed"))
	return r, p
}

// privateTargets are sources a hostile list or a careless user may give,
// each with the host the proxy would be asked for.
var privateTargets = []struct{ url, host string }{
	{"http://10.1.2.3/", "10.1.2.3"},
	{"http://169.254.169.254/latest/meta-data/", "169.254.169.254"},
	{"http://[::1]:8080/", "[::1]"},
	{"http://[::ffff:127.0.0.1]/", "[::ffff:127.0.0.1]"},
	{"http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "[64:ff9b::a9fe:a9fe]"},
	{"http://[2002:a00:1::1]/", "[2002:a00:1::1]"},
	{"http://[fe80::1%25eth0]/", "[fe80::1]"}, // a proxy is sent no zone
	{"http://localhost/", "localhost"},
	{"http://app.localhost:3000/", "app.localhost"},
	{"http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal"},
	{"http://printer.local/", "printer.local"},
	{"http://intranet.example/", "intranet.example"},
	{"http://v6.example/", "v6.example"},
	{"http://nat64.example/", "nat64.example"},
	{"http://mixed.example/", "mixed.example"},
	{"https://10.1.2.3/", "10.1.2.3"},
}

// redirectsInward are public feeds that answer with a redirect to a
// private target, and that target's host.
var redirectsInward = []struct{ path, host string }{
	{"/feed-meta", "169.254.169.254"},
	{"/feed-intranet", "intranet.example"},
	{"/feed-nat64", "[64:ff9b::a9fe:a9fe]"},
	{"/feed-local", "metadata.google.internal"},
	{"/feed-https", "10.1.2.3"},
}

// The guard judges the target of a request handed to a proxy: private
// sources and redirects into private targets are never asked of it, the
// public ones are, each hop on its own, and a refused robots.txt read is
// the same refusal as a refused direct dial.
func TestProxyNeverAskedForPrivateTargets(t *testing.T) {
	r, p := proxiedRig(t, false)
	for _, tc := range privateTargets {
		res := r.get(tc.url, model.PurposeFeed)
		refusedByGuard(t, res) // on robots.txt, the same refusal as a direct dial's
		if got := p.askedFor(tc.host); len(got) != 0 {
			t.Errorf("%s: the proxy was asked %v", tc.url, got)
		}
	}
	// Every refusal is the guard's own, on the robots.txt read that comes
	// first; the feed itself is then held back, unasked.
	var reads int
	for _, rec := range r.records() {
		switch {
		case rec.Purpose == model.PurposeRobots:
			reads++
			if !isErr(rec.Err, fetch.ErrPrivateAddress) {
				t.Errorf("%s: %v, want the guard's refusal", rec.URL, rec.Err)
			}
		case rec.Outcome != model.OutcomeDisallowed:
			t.Errorf("%s %s: %s, want it held back", rec.Purpose, rec.URL, rec.Outcome)
		}
	}
	if reads != len(privateTargets) {
		t.Errorf("%d robots.txt reads for %d private targets", reads, len(privateTargets))
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("the proxy was asked %d requests for private targets: %v", n, p.Requests())
	}

	// A public site is asked through the proxy; its redirects inward are
	// followed no further than the public hop.
	want(t, r.get("http://blog.example/p", model.PurposePage), model.OutcomeFetched)
	for _, tc := range redirectsInward {
		res := r.get("http://blog.example"+tc.path, model.PurposeFeed)
		refusedByGuard(t, res) // the inward target's robots.txt
		if len(res.Redirects) != 1 {
			t.Errorf("%s: redirects %v", tc.path, res.Redirects)
		}
		if got := p.askedFor(tc.host); len(got) != 0 {
			t.Errorf("%s: the proxy was asked %v", tc.path, got)
		}
	}
	wantAsked := []string{"GET http://blog.example/robots.txt", "GET http://blog.example/p"}
	for _, tc := range redirectsInward {
		wantAsked = append(wantAsked, "GET http://blog.example"+tc.path)
	}
	if got := p.Requests(); strings.Join(got, "\n") != strings.Join(wantAsked, "\n") {
		t.Errorf("the proxy was asked\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantAsked, "\n"))
	}
	// An https target is judged before the CONNECT: a public one is asked.
	r.get("https://blog.example/p", model.PurposePage)
	if got := p.askedFor("blog.example"); len(got) != len(wantAsked)+1 || got[len(got)-1] != "CONNECT blog.example:443" {
		t.Errorf("https through the proxy: %v", got)
	}
	t.Logf("proxy asked %d requests: 0 for %d private targets and %d redirects inward, %d for the public site",
		len(p.Requests()), len(privateTargets), len(redirectsInward), len(p.Requests()))
}

// With ALLOW_PRIVATE on, nothing is refused: the same private targets are
// all asked of the proxy.
func TestProxyAskedForPrivateTargetsWhenAllowed(t *testing.T) {
	r, p := proxiedRig(t, true)
	for _, tc := range privateTargets {
		r.get(tc.url, model.PurposeFeed)
		if len(p.askedFor(tc.host)) == 0 {
			t.Errorf("%s: not asked of the proxy", tc.url)
		}
	}
	for _, tc := range redirectsInward {
		res := r.get("http://blog.example"+tc.path, model.PurposeFeed)
		if len(res.Redirects) != 1 {
			t.Errorf("%s: redirects %v", tc.path, res.Redirects)
		}
		if len(p.askedFor(tc.host)) == 0 {
			t.Errorf("%s: the redirect's target %s not asked of the proxy", tc.path, tc.host)
		}
	}
	for _, rec := range r.records() {
		if isErr(rec.Err, fetch.ErrPrivateAddress) {
			t.Errorf("%s: refused with ALLOW_PRIVATE on: %v", rec.URL, rec.Err)
		}
	}
	t.Logf("ALLOW_PRIVATE: proxy asked %d requests for %d private targets and %d redirects inward",
		len(p.Requests()), len(privateTargets), len(redirectsInward))
}

// A name the fetcher cannot resolve is not handed to the proxy with the
// default PROXY_DNS=local (nothing could be judged), and the failure is
// ours, not the site's: the guard's refusal for an unresolved target, the
// page not asked, nothing stored as the site's answer (proxydns_test.go
// has the rest).
func TestProxyTargetUnresolved(t *testing.T) {
	r, p := proxiedRig(t, false)
	res := r.get("http://nowhere.example/", model.PurposePage)
	if res.Outcome != model.OutcomeError || !isErr(res.Err, fetch.ErrUnresolvedTarget) || isErr(res.Err, fetch.ErrPrivateAddress) {
		t.Errorf("%s %v, want our resolver's failure, not a private address", res.Outcome, res.Err)
	}
	recs := r.records()
	if len(recs) != 1 || recs[0].Purpose != model.PurposeRobots || !isErr(recs[0].Err, fetch.ErrUnresolvedTarget) {
		t.Errorf("records %+v, want a refused robots.txt read", recs)
	}
	if n := len(p.Requests()); n != 0 {
		t.Errorf("the proxy was asked %v", p.Requests())
	}
}

// A robots.txt read refused through a proxy looks exactly like one refused
// at the dialer: the same outcome, robots state and error, so that callers
// (and the robots cache) treat both alike.
func TestProxyRefusalMatchesDirect(t *testing.T) {
	direct := newRig(t, false, nil)
	direct.web.Resolve("intranet.example", netip.MustParseAddr("10.0.0.1"))
	proxied, _ := proxiedRig(t, false)
	for _, u := range []string{"http://intranet.example/x", "http://10.1.2.3/x", "http://localhost/x"} {
		a := direct.f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: model.PurposeRobots})
		b := proxied.f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: model.PurposeRobots})
		if a.Outcome != b.Outcome || a.Robots != b.Robots || a.Status != b.Status || a.FinalURL != b.FinalURL {
			t.Errorf("%s: direct %s %s %d %s, proxied %s %s %d %s", u, a.Outcome, a.Robots, a.Status, a.FinalURL,
				b.Outcome, b.Robots, b.Status, b.FinalURL)
		}
		if !isErr(a.Err, fetch.ErrPrivateAddress) || !isErr(b.Err, fetch.ErrPrivateAddress) {
			t.Errorf("%s: direct %v, proxied %v; want ErrPrivateAddress both", u, a.Err, b.Err)
		}
	}
}

// The proxy's own address is let through unguarded only for the requests
// that go to the proxy: a target that shares it (here left out of the
// proxy, as NO_PROXY would) is dialled through the guard, and refused.
func TestProxyAddressNotOpenToTargets(t *testing.T) {
	var p egressProxy
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.Proxy = func(req *http.Request) (*url.URL, error) {
			if req.URL.Hostname() == "127.0.0.1" {
				return nil, nil // NO_PROXY=127.0.0.1
			}
			return p.URL(), nil
		}
		o.Dial = (&net.Dialer{}).DialContext // the real network, so that a broken guard would reach the proxy
	})
	p = newEgressProxy(t, r.web)
	r.web.Host("blog.example").Robots("User-agent: *\nAllow: /\n")
	r.web.Host("blog.example").Put("/p", "text/html", "<html></html>")
	want(t, r.get("http://blog.example/p", model.PurposePage), model.OutcomeFetched)
	before := len(p.Requests())
	res := r.get(p.URL().String()+"/robots.txt", model.PurposePage)
	if res.Outcome == model.OutcomeFetched || !isErr(r.records()[len(r.records())-1].Err, fetch.ErrPrivateAddress) {
		t.Errorf("the proxy's address as a direct target: %s %v", res.Outcome, res.Err)
	}
	if got := p.Requests()[before:]; len(got) != 0 {
		t.Errorf("the proxy was reached directly: %v", got)
	}
}
