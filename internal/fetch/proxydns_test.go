package fetch_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/robots"
)

// blindResolver is our resolver behind an egress proxy that does the DNS:
// it cannot resolve the names in nx ("no such host") nor those in fail (a
// resolver that does not answer), though the proxy reaches them all; any
// other name is as the simulated web says. Every name asked is counted.
type blindResolver struct {
	fetch.Resolver
	nx, fail map[string]bool
	asked    map[string]int
}

func (b blindResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	b.asked[host]++
	switch {
	case b.nx[host]:
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	case b.fail[host]:
		return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
	}
	return b.Resolver.LookupNetIP(ctx, network, host)
}

// Names our resolver cannot resolve, served by the simulated web behind
// the proxy.
const (
	nxBlog       = "nxdomain-blog.example"
	servfailBlog = "servfail-blog.example"
)

type dnsRig struct {
	*rig
	proxy    egressProxy
	resolver blindResolver
	robots   *robotsStore
}

// proxyDNSRig is a rig whose every request goes through a loopback proxy
// that reaches every simulated host, with PROXY_DNS set to mode, the guard
// on, and our resolver blind to nxBlog and servfailBlog.
func proxyDNSRig(t *testing.T, mode string) dnsRig {
	t.Helper()
	d := dnsRig{robots: newRobotsStore()}
	d.rig = newRig(t, false, func(s *config.Settings, o *fetch.Options) {
		s.ProxyDNS = mode
		o.Proxy = func(*http.Request) (*url.URL, error) { return d.proxy.URL(), nil }
		d.resolver = blindResolver{Resolver: o.Resolver,
			nx:    map[string]bool{nxBlog: true, "foo.internal": true, "intranet": true},
			fail:  map[string]bool{servfailBlog: true},
			asked: map[string]int{}}
		o.Resolver = d.resolver
		o.Robots = d.robots
	})
	d.proxy = newEgressProxy(t, d.web)
	for _, name := range []string{nxBlog, servfailBlog, "blog.example"} {
		h := d.web.Host(name)
		h.Robots("User-agent: *\nAllow: /\n")
		h.Put("/p", "text/html", "<html><p>"+name+"</p></html>")
	}
	d.web.Resolve("intranet.example", netip.MustParseAddr("10.0.0.1"))
	return d
}

// With PROXY_DNS=proxy, a name our resolver cannot resolve, whether it
// says "no such host" or fails to answer, is handed to the proxy, which
// resolves it and serves the page; a name it does resolve to a public
// address is handed over as always.
func TestProxyDNSLeavesUnresolvedNamesToProxy(t *testing.T) {
	d := proxyDNSRig(t, config.ProxyDNSProxy)
	for _, name := range []string{nxBlog, servfailBlog, "blog.example"} {
		res := d.get("http://"+name+"/p", model.PurposePage)
		want(t, res, model.OutcomeFetched)
		if !strings.Contains(string(res.Body), name) {
			t.Errorf("%s: body %q", name, res.Body)
		}
		wantAsked := []string{"GET http://" + name + "/robots.txt", "GET http://" + name + "/p"}
		if got := d.proxy.askedFor(name); strings.Join(got, "\n") != strings.Join(wantAsked, "\n") {
			t.Errorf("%s: the proxy was asked %v, want %v", name, got, wantAsked)
		}
		if d.resolver.asked[name] == 0 {
			t.Errorf("%s: never judged by our resolver", name)
		}
		if e, ok := d.robots.stored("http://" + name + ":80"); !ok || e.Verdict.State != robots.StateParsed {
			t.Errorf("%s: robots entry %+v %v, want the file the proxy fetched", name, e, ok)
		}
	}
	if n := d.web.Dials(""); n != 0 {
		t.Errorf("%d direct dials, want every request through the proxy", n)
	}
}

// With PROXY_DNS=local (the default), a name our resolver cannot resolve is
// not handed to the proxy, and the failure is ours, not the site's: the
// guard's refusal (not transient, so no try is counted, and the crawler
// leaves the item due), reason "DNS failure", no robots.txt entry stored
// (not the site's unreachable), no back-off; asked again, the same.
func TestProxyDNSLocalRefusesUnresolvedAsOurs(t *testing.T) {
	d := proxyDNSRig(t, config.ProxyDNSLocal)
	for _, name := range []string{nxBlog, servfailBlog} {
		for range 2 {
			res := d.get("http://"+name+"/p", model.PurposePage)
			if res.Outcome != model.OutcomeError || !fetch.GuardRefused(res.Err) || !errors.Is(res.Err, fetch.ErrUnresolvedTarget) {
				t.Fatalf("%s: %s %v, want the guard's refusal for an unresolved target", name, res.Outcome, res.Err)
			}
			if errors.Is(res.Err, fetch.ErrPrivateAddress) {
				t.Errorf("%s: called a private address: %v", name, res.Err)
			}
			if res.Transient() {
				t.Errorf("%s: transient, would count a try: %v", name, res.Err)
			}
			if got := res.Reason(); got != "DNS failure" {
				t.Errorf("%s: reason %q", name, got)
			}
			if !strings.Contains(res.Err.Error(), "PROXY_DNS") {
				t.Errorf("%s: the error does not say what to change: %v", name, res.Err)
			}
			if e, ok := d.robots.stored("http://" + name + ":80"); ok {
				t.Fatalf("%s: robots entry stored for our resolver's failure: %+v", name, e)
			}
		}
		if got := d.proxy.askedFor(name); len(got) != 0 {
			t.Errorf("%s: the proxy was asked %v", name, got)
		}
		// The robots.txt API gives the same refusal to a caller that asks
		// for the entry (discovery), with nothing stored.
		if _, err := d.f.Robots(context.Background(), "http://"+name+"/"); !errors.Is(err, fetch.ErrUnresolvedTarget) {
			t.Errorf("%s: Robots: %v", name, err)
		}
	}
	// The robots.txt read itself (PurposeRobots) is refused alike, with no
	// robots state that a caller would store as the site's.
	res := d.f.Fetch(context.Background(), fetch.Request{URL: "http://" + nxBlog + "/robots.txt", Purpose: model.PurposeRobots})
	if !errors.Is(res.Err, fetch.ErrUnresolvedTarget) || res.Robots == robots.StateUnreachable {
		t.Errorf("robots.txt read: %s %s %v", res.Outcome, res.Robots, res.Err)
	}
	if n := len(d.proxy.Requests()); n != 0 {
		t.Errorf("the proxy was asked %v", d.proxy.Requests())
	}
	// A public name our resolver knows still goes through.
	want(t, d.get("http://blog.example/p", model.PurposePage), model.OutcomeFetched)
}

// proxyDNSRefused are targets refused whatever PROXY_DNS says: an IP
// literal is judged by its address, a local name by its name, a name our
// resolver gives a private address by that address, and none is ever asked
// of the proxy.
var proxyDNSRefused = []struct{ url, host string }{
	{"http://10.0.0.1/", "10.0.0.1"},
	{"http://127.0.0.1/", "127.0.0.1"},
	{"http://127.0.0.1./", "127.0.0.1."}, // a trailing dot is still the address
	{"http://[::1]/", "[::1]"},
	{"http://169.254.169.254/latest/meta-data/", "169.254.169.254"},
	{"http://169.254.1.2:8080/", "169.254.1.2"},
	{"https://10.0.0.1/", "10.0.0.1"},
	{"http://localhost/", "localhost"},
	{"http://app.localhost/", "app.localhost"},
	{"http://foo.internal/", "foo.internal"}, // our resolver cannot resolve it either
	{"http://printer.local/", "printer.local"},
	{"http://nas.lan/", "nas.lan"},
	{"http://router.home.arpa/", "router.home.arpa"},
	{"http://intranet/", "intranet"},                 // single label: the local search domain's
	{"http://127.1/", "127.1"},                       // inet_aton's 127.0.0.1
	{"http://0x7f.1/", "0x7f.1"},                     // the URL standard's 127.0.0.1
	{"http://2130706433/", "2130706433"},             // 127.0.0.1 as one number
	{"http://intranet.example/", "intranet.example"}, // resolves locally to 10.0.0.1
	// Names that net/http's IDNA mapping turns into refused ones on the
	// way to the proxy: without hostForms, PROXY_DNS=proxy sent the proxy
	// "CONNECT app.localhost:443" and "CONNECT 127.0.0.1:443".
	{"https://app.localhoſt/", "app.localhost"},
	{"https://app.ｌｏｃａｌｈｏｓｔ/", "app.localhost"},
	{"https://１２７.０.０.１/", "127.0.0.1"},
	{"https://１２７。０。０。１/", "127.0.0.1"},
	{"https://１０.０.０.１/", "10.0.0.1"},
	{"https://nas.ｌａｎ/", "nas.lan"},
}

func TestProxyDNSStillRefusesPrivateTargets(t *testing.T) {
	for _, mode := range []string{config.ProxyDNSLocal, config.ProxyDNSProxy} {
		t.Run(mode, func(t *testing.T) {
			d := proxyDNSRig(t, mode)
			for _, tc := range proxyDNSRefused {
				res := d.get(tc.url, model.PurposeFeed)
				if res.Outcome != model.OutcomeError || !errors.Is(res.Err, fetch.ErrPrivateAddress) {
					t.Errorf("%s: %s %v, want the guard's refusal of a private target", tc.url, res.Outcome, res.Err)
					continue
				}
				refusedByGuard(t, res)
				if got := d.proxy.askedFor(tc.host); len(got) != 0 {
					t.Errorf("%s: the proxy was asked %v", tc.url, got)
				}
			}
			// Local names and literals are refused without a lookup.
			for _, name := range []string{"foo.internal", "intranet", "localhost", "127.1", "10.0.0.1"} {
				if n := d.resolver.asked[name]; n != 0 {
					t.Errorf("%s: looked up %d times", name, n)
				}
			}
			if n := len(d.proxy.Requests()); n != 0 {
				t.Errorf("the proxy was asked %v", d.proxy.Requests())
			}
			if n := d.web.Dials(""); n != 0 {
				t.Errorf("%d direct dials", n)
			}
		})
	}
}

// A redirect from a public site into a private or local target is refused
// at the hop in both modes; a redirect to a name our resolver cannot
// resolve is followed through the proxy only with PROXY_DNS=proxy.
func TestProxyDNSRedirects(t *testing.T) {
	for _, mode := range []string{config.ProxyDNSLocal, config.ProxyDNSProxy} {
		t.Run(mode, func(t *testing.T) {
			d := proxyDNSRig(t, mode)
			b := d.web.Host("blog.example")
			b.Handle("/to-local", simweb.Redirect(http.StatusFound, "http://foo.internal/feed"))
			b.Handle("/to-numeric", simweb.Redirect(http.StatusFound, "http://0x7f.1/feed"))
			b.Handle("/to-nx", simweb.Redirect(http.StatusFound, "http://"+nxBlog+"/p"))
			for _, path := range []string{"/to-local", "/to-numeric"} {
				res := d.get("http://blog.example"+path, model.PurposePage)
				if !errors.Is(res.Err, fetch.ErrPrivateAddress) || len(res.Redirects) != 1 {
					t.Errorf("%s: %s %v (redirects %v), want the hop refused", path, res.Outcome, res.Err, res.Redirects)
				}
			}
			res := d.get("http://blog.example/to-nx", model.PurposePage)
			switch mode {
			case config.ProxyDNSProxy:
				want(t, res, model.OutcomeFetched)
			default:
				if !errors.Is(res.Err, fetch.ErrUnresolvedTarget) {
					t.Errorf("to-nx: %s %v, want our resolver's failure", res.Outcome, res.Err)
				}
			}
			for _, q := range d.proxy.Requests() {
				if strings.Contains(q, "foo.internal") || strings.Contains(q, "0x7f.1") {
					t.Errorf("the proxy was asked %s", q)
				}
			}
		})
	}
}

// With no proxy, PROXY_DNS changes nothing: a name our resolver cannot
// resolve is a DNS failure on the direct dial, as before: "no such host"
// is the site's answer (its DNS says the name is gone), retried as a fault
// that says "try later"; a resolver that does not answer is ours.
func TestProxyDNSDirectDialUnchanged(t *testing.T) {
	for _, mode := range []string{config.ProxyDNSLocal, config.ProxyDNSProxy} {
		t.Run(mode, func(t *testing.T) {
			cache := newRobotsStore()
			var blind blindResolver
			r := newRig(t, false, func(s *config.Settings, o *fetch.Options) {
				s.ProxyDNS = mode
				blind = blindResolver{Resolver: o.Resolver, nx: map[string]bool{nxBlog: true},
					fail: map[string]bool{servfailBlog: true}, asked: map[string]int{}}
				o.Resolver, o.Robots = blind, cache
			})
			res := r.get("http://"+nxBlog+"/p", model.PurposePage)
			if res.Outcome != model.OutcomeDisallowed || res.Robots != robots.StateUnreachable {
				t.Errorf("no such host, direct: %s %s %v, want robots.txt unreachable (the site's answer)", res.Outcome, res.Robots, res.Err)
			}
			if _, ok := cache.stored("http://" + nxBlog + ":80"); !ok {
				t.Errorf("no such host, direct: no robots entry stored")
			}
			res = r.get("http://"+servfailBlog+"/p", model.PurposePage)
			if res.Outcome != model.OutcomeError || !fetch.OurNetworkFailed(res.Err) || !res.Transient() {
				t.Errorf("resolver failure, direct: %s %v, want our network's transient failure", res.Outcome, res.Err)
			}
			if e, ok := cache.stored("http://" + servfailBlog + ":80"); ok {
				t.Errorf("resolver failure, direct: robots entry stored: %+v", e)
			}
		})
	}
}

func TestRefusedNameForms(t *testing.T) {
	for _, tc := range []struct {
		host    string
		refused bool
	}{
		{"blog.example", false},
		{"nxdomain-blog.example", false},
		{"203.0.113.7", false}, // an address: Refused judges it, not the name rule
		{"::1", false},
		{"a.b.c.d.example.co.uk", false},
		{"1password.com", false}, // digits in a label that is not the last
		{"example.123abc", false},
		{"example.0xg1", false},
		{"nas.lan", true},
		{"NAS.LAN.", true},
		{"srv.localdomain", true},
		{"pc.home", true},
		{"git.corp", true},
		{"wiki.intranet", true},
		{"db.private", true},
		{"intranet", true},
		{"intranet.", true},
		{"127.1", true},
		{"10.1.1", true},
		{"0x7f.1", true},
		{"0X7F.0X1", true},
		{"2130706433", true},
		{"017700000001", true},
		{"example.0x", true}, // the URL standard reads "0x" as 0
		{"blog.example.42", true},
	} {
		if got := fetch.RefusedName(tc.host); got != tc.refused {
			t.Errorf("RefusedName(%q) = %v, want %v", tc.host, got, tc.refused)
		}
	}
}

// blackHole is a resolver whose lookups never answer: they end only with
// the caller's context.
type blackHole struct{ fetch.Resolver }

func (blackHole) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	<-ctx.Done()
	return nil, &net.DNSError{Err: ctx.Err().Error(), IsTimeout: true}
}

// With PROXY_DNS=proxy, a resolver that never answers holds a request no
// longer than the dial timeout (here 100 ms; at most 2 s): the name is then
// left to the proxy, as an unresolvable one is, and a literal or a local
// name is still refused without asking it.
func TestProxyDNSResolverBlackHole(t *testing.T) {
	var p egressProxy
	r := newRig(t, true, func(s *config.Settings, o *fetch.Options) {
		s.ProxyDNS = config.ProxyDNSProxy
		o.Proxy = func(*http.Request) (*url.URL, error) { return p.URL(), nil }
		o.Resolver = blackHole{}
		o.Timeouts.Dial = 100 * time.Millisecond
	})
	p = newEgressProxy(t, r.web)
	h := r.web.Host("slow-dns.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/p", "text/html", "<html><p>behind the proxy's DNS</p></html>")
	want(t, r.get("http://slow-dns.example/p", model.PurposePage), model.OutcomeFetched)
	for _, u := range []string{"http://10.0.0.1/p", "http://nas.lan/p"} {
		refusedByGuard(t, r.get(u, model.PurposePage))
	}
	if got := p.askedFor("slow-dns.example"); len(got) != 2 {
		t.Errorf("the proxy was asked %v", got)
	}
	if n := len(p.Requests()); n != 2 {
		t.Errorf("the proxy was asked %v", p.Requests())
	}
}
