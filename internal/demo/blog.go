package demo

import (
	"fmt"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/robots"
)

// The blogs' shapes — feed format, catalogue style, sitemap style,
// robots.txt answer — are the farm's vocabulary (package simweb/farm), one
// home for the simulated web's sites whether they are held in memory here
// or generated per request there.

// Spec describes one blog of the population.
type Spec struct {
	Host      string
	Posts     int // posts on day 1
	Feed      farm.FeedKind
	Unlinked  bool // the feed is not declared by <link rel="alternate">: found at a well-known path
	Full      bool // the feed carries each post's whole text
	FeedSize  int  // entries per feed page (default 10)
	Catalogue farm.CatalogueKind
	Sitemap   farm.SitemapKind
	Robots    farm.RobotsKind
	Refuse    bool // a firewall answers 403 to everything but robots.txt
	Shell     bool // post pages render only in the browser
	Noindex   int  // every Noindex-th post says noindex (0: none)
	Private   int  // every Private-th post lives under /private/ (0: none)
	Changes   Rates
	HTTPS     bool // the blog's URLs are https:// (served by simweb's https server)
}

// Rates are how many posts a blog adds, modifies and removes a day, at most
// (each day's figure is drawn between 0 and the rate, deterministically).
type Rates struct{ New, Modified, Removed int }

// Post is one article of a blog.
type Post struct {
	Path      string
	Title     string
	Published time.Time
	Updated   time.Time
	Rev       int // revision: the text changes with it
	Removed   bool
	Noindex   bool
	seed      uint64
}

// Blog is a Spec with its posts as of the current simulated day.
type Blog struct {
	Spec
	Posts []*Post // oldest first, removed ones included
}

func (b *Blog) feedSize() int {
	if b.FeedSize > 0 {
		return b.FeedSize
	}
	return 10
}

// live is the posts not removed, newest first: the order feeds and listings
// show them in.
func (b *Blog) live() []*Post {
	out := make([]*Post, 0, len(b.Posts))
	for i := len(b.Posts) - 1; i >= 0; i-- {
		if !b.Posts[i].Removed {
			out = append(out, b.Posts[i])
		}
	}
	return out
}

// URL is the absolute URL of path on the blog.
func (b *Blog) URL(path string) string {
	if b.HTTPS {
		return "https://" + b.Host + path
	}
	return "http://" + b.Host + path
}

// FeedPath is where the feed is served.
func (b *Blog) FeedPath() string {
	switch b.Feed {
	case farm.FeedAtom:
		return "/atom.xml"
	case farm.FeedJSON:
		return "/feed.json"
	case farm.FeedRSS:
		return "/feed"
	}
	return ""
}

// robotsBody is the /robots.txt text, "" for the variants that serve none.
func (b *Blog) robotsBody() string {
	var sb strings.Builder
	switch b.Robots {
	case farm.Robots404, farm.Robots503:
		return ""
	case farm.RobotsSection:
		sb.WriteString("User-agent: *\nDisallow: /private/\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n")
	case farm.RobotsDisallowUs:
		sb.WriteString("User-agent: CorpusBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
	case farm.RobotsCrawlDelay:
		fmt.Fprintf(&sb, "User-agent: *\nCrawl-delay: %d\nDisallow: /search\n", int(farm.CrawlDelay/time.Second))
	case farm.RobotsNoFeed:
		fmt.Fprintf(&sb, "User-agent: *\nDisallow: %s\n", b.FeedPath())
	default:
		sb.WriteString("User-agent: *\nAllow: /\n")
	}
	switch b.Sitemap {
	case farm.SitemapRobots:
		fmt.Fprintf(&sb, "\nSitemap: %s\n", b.URL("/sitemap.xml"))
	case farm.SitemapIndex:
		fmt.Fprintf(&sb, "\nSitemap: %s\n", b.URL("/sitemap_index.xml"))
	}
	return sb.String()
}

// robotsRules is what robots.txt lets agent fetch, the way RFC 9309 and the
// crawler's design read each variant.
func (b *Blog) robotsRules(agent string) *robots.Rules {
	switch b.Robots {
	case farm.Robots503:
		return robots.DisallowAll()
	case farm.Robots404:
		return robots.AllowAll()
	}
	return robots.Parse([]byte(b.robotsBody())).For(agent)
}

// rules is what agent can actually get: robots.txt's rules, and nothing at
// all past a refusing firewall whatever the file says.
func (b *Blog) rules(agent string) *robots.Rules {
	if b.Refuse {
		return robots.DisallowAll()
	}
	return b.robotsRules(agent)
}
