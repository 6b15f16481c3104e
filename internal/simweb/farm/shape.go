package farm

import "time"

// FeedKind is the format of a site's feed.
type FeedKind int

// The feed formats; FeedNone is a site without any.
const (
	FeedNone FeedKind = iota
	FeedRSS
	FeedAtom
	FeedJSON
)

// CatalogueKind is how a feed's older entries are reached.
type CatalogueKind int

// The catalogue styles.
const (
	CatalogueNone  CatalogueKind = iota // page one is all there is
	CataloguePaged                      // WordPress: ?paged=N
	CatalogueNext                       // RFC 5005: rel="next" (Atom, RSS) or next_url (JSON Feed), at ?page=N
)

// SitemapKind is whether and how a site publishes a sitemap.
type SitemapKind int

// The sitemap styles.
const (
	SitemapNone      SitemapKind = iota
	SitemapRobots                // /sitemap.xml, named by a Sitemap: line
	SitemapWellKnown             // /sitemap.xml, named nowhere
	SitemapIndex                 // /sitemap_index.xml naming one child per year, named by a Sitemap: line
)

// RobotsKind is what a site's /robots.txt answers.
type RobotsKind int

// The robots.txt variants.
const (
	RobotsAllowAll   RobotsKind = iota // 200, everything allowed
	RobotsSection                      // 200, /private/ disallowed
	RobotsDisallowUs                   // 200, CorpusBot disallowed everything, others welcome
	RobotsCrawlDelay                   // 200, Crawl-delay: 5
	RobotsNoFeed                       // 200, the feed disallowed (the sitemap is not)
	Robots404                          // no file: allow all
	Robots503                          // server error: crawling paused
)

// CrawlDelay is the Crawl-delay of RobotsCrawlDelay sites.
const CrawlDelay = 5 * time.Second

// Shape is a kind of site: its publishing stack and its robots.txt
// answer, as package demo's archetypes describe the blogs a crawler meets.
type Shape struct {
	Name      string
	Weight    int // relative share of the population (0 counts as 1)
	Feed      FeedKind
	Full      bool // the feed carries each post's whole text
	Unlinked  bool // no <link rel="alternate">: the feed is found at its well-known path
	Catalogue CatalogueKind
	Sitemap   SitemapKind
	Robots    RobotsKind
	Refuse    bool // a firewall answers 403 to everything but robots.txt
	Shell     bool // post pages render only in a browser
	Noindex   int  // every Noindex-th post says noindex (0: none)
	Private   int  // every Private-th post lives under /private/ (0: none)
	// MinPosts and MaxPosts bound this shape's posts on day 1 in place of
	// the Config's (0: the Config's), so that a population can hold a few
	// deep sites among many small ones.
	MinPosts, MaxPosts int
}

// DemoShapes are package demo's thirteen archetypes, in equal shares: RSS
// with ?paged=N and a sitemap index, full-content feeds, Atom and JSON
// Feed with next pages, a feed only at its well-known path, a disallowed
// section, noindex posts, client-rendered shells, a disallowed feed, no
// feed and no sitemap, robots.txt disallowing CorpusBot, robots.txt
// answering 503, and a firewall answering 403.
func DemoShapes() []Shape {
	return []Shape{
		{Name: "press", Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapIndex, Robots: RobotsSection},
		{Name: "fulltext", Feed: FeedRSS, Full: true, Catalogue: CataloguePaged, Sitemap: SitemapWellKnown},
		{Name: "hugo", Feed: FeedAtom, Catalogue: CatalogueNext, Sitemap: SitemapWellKnown, Robots: Robots404},
		{Name: "jsonfeed", Feed: FeedJSON, Full: true, Catalogue: CatalogueNext, Sitemap: SitemapRobots, Robots: RobotsCrawlDelay},
		{Name: "unlinked", Feed: FeedAtom, Unlinked: true, Catalogue: CatalogueNone},
		{Name: "section", Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapRobots, Robots: RobotsSection, Private: 4},
		{Name: "noindex", Feed: FeedAtom, Catalogue: CatalogueNext, Sitemap: SitemapRobots, Noindex: 3},
		{Name: "spa", Feed: FeedRSS, Catalogue: CatalogueNone, Sitemap: SitemapRobots, Shell: true},
		{Name: "nofeed", Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapIndex, Robots: RobotsNoFeed},
		{Name: "handmade", Feed: FeedNone, Sitemap: SitemapNone},
		{Name: "private", Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapRobots, Robots: RobotsDisallowUs},
		{Name: "broken", Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapWellKnown, Robots: Robots503},
		{Name: "walled", Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapRobots, Refuse: true},
	}
}

// FeedShapes are sites whose feeds carry every post's whole text, in a
// catalogue that reaches every post, so that a crawler owes no page fetch
// (but the homepage's): the feed and sitemap work alone, in every format,
// catalogue and sitemap style (Crawl-delay and a missing robots.txt
// included, as they change the requests, not the work).
func FeedShapes() []Shape {
	return []Shape{
		{Name: "press-full", Feed: FeedRSS, Full: true, Catalogue: CataloguePaged, Sitemap: SitemapIndex, Robots: RobotsSection},
		{Name: "fulltext", Feed: FeedRSS, Full: true, Catalogue: CataloguePaged, Sitemap: SitemapWellKnown},
		{Name: "hugo-full", Feed: FeedAtom, Full: true, Catalogue: CatalogueNext, Sitemap: SitemapRobots, Robots: Robots404},
		{Name: "jsonfeed", Feed: FeedJSON, Full: true, Catalogue: CatalogueNext, Sitemap: SitemapRobots, Robots: RobotsCrawlDelay},
		{Name: "json-paged", Feed: FeedJSON, Full: true, Catalogue: CataloguePaged, Sitemap: SitemapIndex},
	}
}

// PageShapes are sites whose feeds carry summaries, so that every post is
// a page to fetch and extract: the page work on its own.
func PageShapes() []Shape {
	return []Shape{
		{Name: "press", Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapRobots},
		{Name: "hugo", Feed: FeedAtom, Catalogue: CatalogueNext, Sitemap: SitemapRobots, Robots: Robots404},
	}
}

// FeedPath is where a feed of kind k is served.
func FeedPath(k FeedKind) string {
	switch k {
	case FeedAtom:
		return "/atom.xml"
	case FeedJSON:
		return "/feed.json"
	case FeedRSS:
		return "/feed"
	}
	return ""
}

func feedType(k FeedKind) string {
	switch k {
	case FeedAtom:
		return "application/atom+xml"
	case FeedJSON:
		return "application/feed+json"
	}
	return "application/rss+xml"
}

func pageParam(c CatalogueKind) string {
	if c == CatalogueNext {
		return "page"
	}
	return "paged"
}
