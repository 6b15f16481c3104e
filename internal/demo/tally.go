package demo

import (
	"net/http"
	"strings"

	"corpus.blog/corpusbot/internal/simweb"
)

// Kind is what a requested URL is on its blog, judged on the server side
// from the blog's own layout, so that both crawlers are counted alike.
type Kind string

// The kinds, in the order the report lists them.
const (
	KindRobots    Kind = "robots.txt"
	KindHome      Kind = "homepage"
	KindFeed      Kind = "feed"
	KindCatalogue Kind = "feed archive page"
	KindSitemap   Kind = "sitemap"
	KindPost      Kind = "post page"
	KindListing   Kind = "listing or other page"
	KindProbe     Kind = "well-known path tried"
)

// Kinds lists every kind in report order.
var Kinds = []Kind{KindRobots, KindHome, KindFeed, KindCatalogue, KindSitemap, KindPost, KindListing, KindProbe}

// Count is requests of one kind.
type Count struct {
	Requests    int
	NotModified int   // answered 304
	Errors      int   // answered 4xx or 5xx
	Bytes       int64 // response body bytes on the wire
}

func (c *Count) add(r simweb.Request) {
	c.Requests++
	c.Bytes += r.Bytes
	switch {
	case r.Status == http.StatusNotModified:
		c.NotModified++
	case r.Status >= 400:
		c.Errors++
	}
}

// Tally is one crawler's requests on one day.
type Tally struct {
	Total     Count
	ByKind    map[Kind]Count
	PostPages map[string]int // post URL -> requests answered 200 (full page sent)
}

// tally counts the requests a web received, classified by the population's
// layout.
func tally(reqs []simweb.Request, pop *Population) Tally {
	t := Tally{ByKind: map[Kind]Count{}, PostPages: map[string]int{}}
	kinds := pop.layout()
	for _, r := range reqs {
		k := kinds.kindOf(r.Host, r.URI)
		c := t.ByKind[k]
		c.add(r)
		t.ByKind[k] = c
		t.Total.add(r)
		if k == KindPost && r.Status == http.StatusOK {
			t.PostPages["http://"+r.Host+r.URI]++
		}
	}
	return t
}

// layout is, per host, the kind of each path the blog serves.
type layout map[string]map[string]Kind

func (p *Population) layout() layout {
	l := layout{}
	for _, b := range p.Blogs {
		m := map[string]Kind{"/robots.txt": KindRobots, "/": KindHome, "/about/": KindListing}
		for _, post := range b.Posts {
			m[post.Path] = KindPost
		}
		live := b.live()
		for n := 2; n <= listingPages(len(live)); n++ {
			m[listingPath(n)] = KindListing
		}
		for _, d := range sitemapDocs(b, live) {
			m[d.path] = KindSitemap
		}
		if fp := b.FeedPath(); fp != "" {
			m[fp] = KindFeed
		}
		l[b.Host] = m
	}
	return l
}

func (l layout) kindOf(host, uri string) Kind {
	m := l[host]
	path, query, _ := strings.Cut(uri, "?")
	k, ok := m[path]
	switch {
	case !ok && strings.HasPrefix(path, "/page/"):
		return KindListing // a listing page that no longer exists
	case !ok:
		return KindProbe
	case k == KindFeed && query != "":
		return KindCatalogue
	case k == KindHome && query != "":
		return KindProbe // /?feed=rss2, a well-known feed path
	}
	return k
}
