package crawl_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// nxResolver cannot resolve name ("no such host"), which the egress proxy
// reaches; other names are as the simulated web says.
type nxResolver struct {
	fetch.Resolver
	name string
}

func (r nxResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if host == r.name {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return r.Resolver.LookupNetIP(ctx, network, host)
}

// Behind an egress proxy that does the DNS, with PROXY_DNS=local, a source
// our resolver cannot resolve is not crawled and nothing of it is stored as
// the site's answer: no robots.txt entry, no try counted, no wait; the
// round reports our failure. The next round with PROXY_DNS=proxy crawls it
// at once, through the proxy.
func TestCrawlProxyDNS(t *testing.T) {
	const name = "nxdomain-blog.example"
	w := newWorldWith(t, "", false, nil)
	p := newEgressProxy(t, w.web)
	pu := p.URL()
	proxied := func(mode string) func(*fetch.Options) {
		return func(o *fetch.Options) {
			o.Settings.ProxyDNS = mode
			o.Proxy = http.ProxyURL(pu)
			o.Resolver = nxResolver{Resolver: o.Resolver, name: name}
		}
	}
	h := w.web.Host(name)
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	h.Put("/feed", rssType, rss([]item{{h.URL("/p1"), "Post", day0, false}}))
	h.Put("/p1", htmlType, article("Post", "a post behind the proxy's DNS", ""))
	ctx := context.Background()
	if _, _, err := w.db.AddSource(ctx, "http://"+name+"/", w.clock.Now()); err != nil {
		t.Fatal(err)
	}

	rewire(w, proxied(config.ProxyDNSLocal))
	err := w.c.Once(ctx)
	if !errors.Is(err, fetch.ErrUnresolvedTarget) || errors.Is(err, fetch.ErrPrivateAddress) {
		t.Fatalf("PROXY_DNS=local: %v, want our resolver's failure reported", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Errorf("PROXY_DNS=local: the proxy was asked %v", p.Requests())
	}
	var src store.Source
	if err := w.db.EachSource(ctx, func(s store.Source) error { src = s; return nil }); err != nil {
		t.Fatal(err)
	}
	if src.Attempts != 0 || !src.DiscoverAfter.IsZero() || !src.Discovered.IsZero() || src.Error != "" {
		t.Errorf("PROXY_DNS=local: the source was charged for our failure: %+v", src)
	}
	if r, err := w.db.Robots(ctx, "http://"+name+":80"); err == nil {
		t.Errorf("PROXY_DNS=local: robots.txt entry stored as the site's: %+v", r)
	}

	rewire(w, proxied(config.ProxyDNSProxy))
	if err := w.c.Once(ctx); err != nil {
		t.Fatalf("PROXY_DNS=proxy: %v", err)
	}
	if got := w.post(h.URL("/p1")); got.State != model.PostIndexed {
		t.Errorf("PROXY_DNS=proxy: the post is %q, want indexed", got.State)
	}
	if p.hostsAsked()[name] == 0 {
		t.Error("PROXY_DNS=proxy: not crawled through the proxy")
	}
	w.clean()
}
