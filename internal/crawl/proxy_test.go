package crawl_test

import (
	"context"
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
	"corpus.blog/corpusbot/internal/store"
)

// rewire gives w a new fetcher, built as wire builds it and then changed
// by tweak (a proxy, a longer time limit).
func rewire(w *world, tweak func(*fetch.Options)) {
	t, db := w.t, w.db
	var clock fetch.Clock = fetch.RealClock{}
	if w.clock != nil {
		clock = w.clock
	}
	o := w.fetchOptions(db, clock)
	o.Timeouts = fetch.Timeouts{Total: 5 * time.Second}
	tweak(&o)
	f, err := fetch.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.CloseIdleConnections)
	w.c.Fetcher = f
}

// egressProxy is simweb's EgressProxy, closed at the test's end.
type egressProxy struct{ *simweb.EgressProxy }

func newEgressProxy(t testing.TB, web *simweb.Web) egressProxy {
	t.Helper()
	p := web.NewEgressProxy()
	t.Cleanup(p.Close)
	return egressProxy{p}
}

// hostsAsked counts the requests asked of the proxy per host.
func (p egressProxy) hostsAsked() map[string]int {
	out := map[string]int{}
	for _, q := range p.Requests() {
		_, target, _ := strings.Cut(q, " ")
		if u, err := url.Parse(target); err == nil {
			out[u.Host]++
		}
	}
	return out
}

// The private targets of the probe, with what each would answer if asked:
// the cloud metadata service, an intranet, a printer. Each serves a feed
// titled "metadata" whose one item holds the secret in full.
var probeTargets = []string{"10.1.2.3", "169.254.169.254", "intranet.example", "metadata.google.internal", "printer.local"}

const secret = "SECRET-METADATA-TOKEN"

// probeWorld is a crawler behind an egress proxy, with the public blogs
// and private targets of the hostile-server probe.
func probeWorld(t *testing.T, allowPrivate bool) (*world, egressProxy) {
	w := newWorldWith(t, "", false, func(s *config.Settings) { s.AllowPrivate = allowPrivate })
	p := newEgressProxy(t, w.web)
	pu := p.URL()
	rewire(w, func(o *fetch.Options) { o.Proxy = http.ProxyURL(pu) })
	w.web.Resolve("intranet.example", netip.MustParseAddr("10.0.0.1"))
	for _, host := range probeTargets {
		h := w.web.Host(host)
		h.Robots("User-agent: *\nAllow: /\n")
		h.Put("/", htmlType, homepage("/latest/meta-data/"))
		h.Put("/latest/meta-data/", rssType, strings.NewReplacer("Full post text.", secret, "<title>Blog</title>", "<title>metadata</title>").
			Replace(rss([]item{{h.URL("/latest/meta-data/iam"), "metadata", day0, true}})))
		h.Put("/secret", htmlType, article("metadata", secret, ""))
	}
	// A public blog whose feed links to private targets.
	pub := w.web.Host("pub.example")
	pub.Robots("User-agent: *\nAllow: /\n")
	pub.Put("/", htmlType, homepage("/feed"))
	items := []item{{pub.URL("/p1"), "Public", day0, false}}
	for _, host := range probeTargets {
		items = append(items, item{"http://" + host + "/secret", "Linked inward", day0, false})
	}
	pub.Put("/feed", rssType, rss(items))
	pub.Put("/p1", htmlType, article("Public", "a public post", ""))
	// A public blog whose feed answers 302 to the metadata service.
	redir := w.web.Host("redir.example")
	redir.Robots("User-agent: *\nAllow: /\n")
	redir.Put("/", htmlType, homepage("/feed"))
	redir.Handle("/feed", simweb.Redirect(http.StatusFound, "http://169.254.169.254/latest/meta-data/"))

	ctx := context.Background()
	for _, src := range []string{"http://pub.example/", "http://redir.example/", "http://10.1.2.3/", "http://169.254.169.254/",
		"http://intranet.example/", "http://metadata.google.internal/"} {
		if _, _, err := w.db.AddSource(ctx, src, w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// Without ALLOW_PRIVATE the private sources fail with the guard's
	// refusal (and nothing else does); a feed's link or redirect into them
	// is only that item's answer.
	if err := w.c.Once(ctx); err != nil && (allowPrivate || !fetch.GuardRefused(err) ||
		strings.Contains(err.Error(), "site pub.example") || strings.Contains(err.Error(), "site redir.example")) {
		t.Fatal(err)
	}
	return w, p
}

// secretsStored lists the posts and feeds that hold what only a private
// target serves.
func secretsStored(t *testing.T, w *world) []string {
	ctx := context.Background()
	var found []string
	err := w.db.EachPost(ctx, func(p store.Post) error {
		if strings.Contains(p.Text, secret) || p.Title == "metadata" {
			found = append(found, "post "+p.URL)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = w.db.EachSource(ctx, func(s store.Source) error {
		feeds, err := w.db.SourceFeeds(ctx, s.ID)
		for _, f := range feeds {
			if f.Title == "metadata" {
				found = append(found, "feed "+f.URL)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// Behind a proxy, a crawl asks it nothing of a private source, a feed's
// redirect into the metadata service or a feed's links to private targets,
// and stores nothing they would serve; the public blogs are crawled
// through it as usual.
func TestCrawlBehindProxyAsksNothingPrivate(t *testing.T) {
	w, p := probeWorld(t, false)
	asked := p.hostsAsked()
	for _, host := range probeTargets {
		if asked[host] != 0 {
			t.Errorf("the proxy was asked %d requests of %s", asked[host], host)
		}
	}
	for _, host := range []string{"pub.example", "redir.example"} {
		if asked[host] == 0 {
			t.Errorf("the public %s was not crawled through the proxy", host)
		}
	}
	if p := w.post("http://pub.example/p1"); p.State != model.PostIndexed {
		t.Errorf("the public post: %s", p.State)
	}
	if found := secretsStored(t, w); len(found) != 0 {
		t.Errorf("stored from private targets: %v", found)
	}
	w.clean()
	t.Logf("the proxy was asked %d requests, per host %v", len(p.Requests()), asked)
}

// With ALLOW_PRIVATE on, the same crawl asks the proxy for every private
// target, and stores what they serve: the guard, not chance, kept them out
// above.
func TestCrawlBehindProxyAllowPrivate(t *testing.T) {
	w, p := probeWorld(t, true)
	asked := p.hostsAsked()
	private := 0
	for _, host := range probeTargets {
		if asked[host] == 0 {
			t.Errorf("%s was not asked of the proxy", host)
		}
		private += asked[host]
	}
	if found := secretsStored(t, w); len(found) == 0 {
		t.Error("nothing of the private targets stored with ALLOW_PRIVATE on")
	}
	t.Logf("the proxy was asked %d requests, %d of them of private targets, per host %v; stored %v", len(p.Requests()), private, asked, secretsStored(t, w))
}
