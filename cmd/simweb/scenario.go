package main

import (
	"fmt"
	"html"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/robots"
)

// The "days" scenario: eight blogs, http://203.0.113.1/ to
// http://203.0.113.8/, over three simulated days, each blog with a
// homepage, a robots.txt and posts. Day 1 is the web as the crawler first
// finds it; switching to day 2 and 3 publishes new posts and lifts a
// robots.txt rule. Everything is fixed in code: the same day serves the same
// bytes with the same validators, whatever happened before, except the
// transient faults, which each strike once (counted per URL, whatever the
// day) and then heal.
//
//   - blog1, an ordinary blog: an RSS summary feed at /feed/ declared by
//     <link rel="alternate">, robots.txt naming /sitemap-posts.xml on a
//     Sitemap: line and disallowing /private/; three posts on day 1, a new
//     one on day 2 and another on day 3 (in the feed and the sitemap); a
//     draft under /private/, listed in the sitemap only, that must never be
//     fetched.
//   - blog2, a feed robots.txt refuses: on day 1 robots.txt has
//     "User-agent: CorpusBot / Disallow: /feed" (the declared feed is
//     /feed/), from day 2 on the rule is gone. No sitemap anywhere, so its
//     three posts can only be learnt from the feed: on day 2, once the feed
//     is read again.
//   - blog3, a well-known sitemap: robots.txt has no Sitemap: line, and
//     /sitemap.xml is a valid urlset of its four posts; the feed lists the
//     two newest only, so two posts are reachable through that candidate
//     alone.
//   - blog4, a well-known feed: the homepage declares no feed, /feed, /rss,
//     /atom.xml, /feed.xml, /index.xml and /rss.xml answer 404, and the feed
//     is at /?feed=rss2 (WordPress without pretty links); three posts on
//     day 1 and one more on day 2, so the day-2 re-read of the candidate is
//     answered in full (to a conditional request).
//   - blog5, throttled posts: /posts/two answers 429 with Retry-After: 5
//     and /posts/three 503 with Retry-After: 3, once each.
//   - blog6, a broken connection and a broken feed: the feed /feed/ answers
//     500 once (no Retry-After), and /posts/one drops its connection once,
//     before any response. No sitemap: the posts come from the feed alone.
//   - blog7, a sitemap that is busy: /sitemap-posts.xml (named by
//     robots.txt) answers 503 with Retry-After: 2 once; the feed lists the
//     two newest of four posts, so two posts are reachable only once the
//     sitemap is read.
//   - blog8, a robots.txt that fails once: its first /robots.txt answers
//     503 (no Retry-After), which pauses the site; after that the file
//     allows everything and names /sitemap-posts.xml.
//
// Every well-known path a blog does not serve answers 404, and a route for
// a path answers 404 when asked with a query string (/feed/?paged=2), so a
// catalogue walk ends at once.

// scenarioDays is the number of days of the "days" scenario; later days
// serve day 3's web.
const scenarioDays = 3

// dayOne is the simulated date of day 1; day n is n-1 days later. Dates of
// posts and Last-Modified of documents changed on a day come from it.
var dayOne = time.Date(2026, 3, 1, 7, 0, 0, 0, time.UTC)

func dayDate(day int) time.Time { return dayOne.AddDate(0, 0, day-1) }

// wellKnownPaths are the paths a crawler may try on a blog that declares no
// feed or no sitemap: the well-known "candidates". No blog here declares a feed or sitemap at one of them, so
// every request for one is a candidate's.
var wellKnownPaths = []string{
	"/feed", "/rss", "/atom.xml", "/feed.xml", "/index.xml", "/rss.xml", "/?feed=rss2",
	"/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml",
	"/sitemap/sitemap.xml", "/sitemap.xml.gz", "/sitemap.txt", "/sitemaps/sitemap.xml",
}

// faultSpec is a transient fault: the first times requests for its path get
// it, later ones the document.
type faultSpec struct {
	kind       string // "429", "503", "500": that status; "reset": the connection dropped unanswered
	retryAfter int    // seconds sent as Retry-After, 0 for none
}

func (f faultSpec) status() int {
	n, _ := strconv.Atoi(f.kind)
	return n // 0 for a reset: no response at all
}

func (f faultSpec) handler() http.Handler {
	if f.kind == "reset" {
		return simweb.Reset()
	}
	if f.retryAfter > 0 {
		return simweb.Status(f.status(), "Retry-After", strconv.Itoa(f.retryAfter))
	}
	return simweb.Status(f.status())
}

type postSpec struct {
	path        string
	title       string
	day         int  // the day it is published (1: already there when the crawl starts)
	sitemapOnly bool // listed in the sitemap, not in the feed
}

type blogSpec struct {
	host           string
	about          string
	rules          string // robots.txt's groups; the Sitemap: line and the feed rule are added
	feedDisallowed int    // days before this one, robots.txt disallows /feed for CorpusBot (0: never)
	feedPath       string // where the RSS feed is served (path, or path?query)
	declareFeed    bool   // the homepage names the feed in <link rel="alternate">
	sitemapPath    string // where a urlset of the posts is served ("": none)
	declareSitemap bool   // robots.txt names the sitemap on a Sitemap: line
	posts          []postSpec
	faults         map[string]faultSpec // by path; "/robots.txt" included
}

const allowAll = "User-agent: *\nDisallow:\n"

func daysBlogs() []blogSpec {
	return []blogSpec{{
		host:  "203.0.113.1",
		about: "ordinary blog: declared RSS summary feed, Sitemap: line, a post on day 2 and on day 3, a disallowed draft",
		rules: "User-agent: *\nDisallow: /private/\n", feedPath: "/feed/", declareFeed: true,
		sitemapPath: "/sitemap-posts.xml", declareSitemap: true,
		posts: []postSpec{
			{path: "/posts/one", title: "First light", day: 1},
			{path: "/posts/two", title: "Second wind", day: 1},
			{path: "/posts/three", title: "Third rail", day: 1},
			{path: "/private/draft", title: "A draft", day: 1, sitemapOnly: true},
			{path: "/posts/four", title: "Fourth wall", day: 2},
			{path: "/posts/five", title: "Fifth season", day: 3},
		},
	}, {
		host:  "203.0.113.2",
		about: "feed disallowed for CorpusBot on day 1, allowed from day 2; no sitemap",
		rules: allowAll, feedDisallowed: 2, feedPath: "/feed/", declareFeed: true,
		posts: []postSpec{
			{path: "/posts/one", title: "Behind the fence", day: 1},
			{path: "/posts/two", title: "Gate ajar", day: 1},
			{path: "/posts/three", title: "Open field", day: 1},
		},
	}, {
		host:  "203.0.113.3",
		about: "no Sitemap: line; /sitemap.xml is a urlset (well-known candidate); the feed lists the two newest posts",
		rules: allowAll, feedPath: "/feed/", declareFeed: true, sitemapPath: "/sitemap.xml",
		posts: []postSpec{
			{path: "/posts/one", title: "Old map", day: 1, sitemapOnly: true},
			{path: "/posts/two", title: "Older map", day: 1, sitemapOnly: true},
			{path: "/posts/three", title: "New road", day: 1},
			{path: "/posts/four", title: "Newer road", day: 1},
		},
	}, {
		host:  "203.0.113.4",
		about: "homepage declares no feed; the feed is only at /?feed=rss2 (well-known candidate); a post on day 2",
		rules: allowAll, feedPath: "/?feed=rss2",
		posts: []postSpec{
			{path: "/posts/one", title: "Plain links", day: 1},
			{path: "/posts/two", title: "Query strings", day: 1},
			{path: "/posts/three", title: "Old habits", day: 1},
			{path: "/posts/four", title: "Still here", day: 2},
		},
	}, {
		host:  "203.0.113.5",
		about: "a post answering 429 Retry-After: 5 once, another 503 Retry-After: 3 once",
		rules: allowAll, feedPath: "/feed/", declareFeed: true, sitemapPath: "/sitemap-posts.xml", declareSitemap: true,
		posts: []postSpec{
			{path: "/posts/one", title: "Queue", day: 1},
			{path: "/posts/two", title: "Too many", day: 1},
			{path: "/posts/three", title: "Not now", day: 1},
			{path: "/posts/four", title: "Later", day: 1},
		},
		faults: map[string]faultSpec{
			"/posts/two":   {kind: "429", retryAfter: 5},
			"/posts/three": {kind: "503", retryAfter: 3},
		},
	}, {
		host:  "203.0.113.6",
		about: "feed answering 500 once, a post whose connection is reset once; no sitemap",
		rules: allowAll, feedPath: "/feed/", declareFeed: true,
		posts: []postSpec{
			{path: "/posts/one", title: "Cut wire", day: 1},
			{path: "/posts/two", title: "Spliced", day: 1},
			{path: "/posts/three", title: "Signal", day: 1},
		},
		faults: map[string]faultSpec{
			"/feed/":     {kind: "500"},
			"/posts/one": {kind: "reset"},
		},
	}, {
		host:  "203.0.113.7",
		about: "declared sitemap answering 503 Retry-After: 2 once; two posts reachable only through it",
		rules: allowAll, feedPath: "/feed/", declareFeed: true, sitemapPath: "/sitemap-posts.xml", declareSitemap: true,
		posts: []postSpec{
			{path: "/posts/one", title: "Archive", day: 1, sitemapOnly: true},
			{path: "/posts/two", title: "Back issue", day: 1, sitemapOnly: true},
			{path: "/posts/three", title: "This week", day: 1},
			{path: "/posts/four", title: "Today", day: 1},
		},
		faults: map[string]faultSpec{
			"/sitemap-posts.xml": {kind: "503", retryAfter: 2},
		},
	}, {
		host:  "203.0.113.8",
		about: "robots.txt answering 503 once (no Retry-After), then allowing everything with a Sitemap: line",
		rules: allowAll, feedPath: "/feed/", declareFeed: true, sitemapPath: "/sitemap-posts.xml", declareSitemap: true,
		posts: []postSpec{
			{path: "/posts/one", title: "Closed sign", day: 1},
			{path: "/posts/two", title: "Open again", day: 1},
			{path: "/posts/three", title: "Business as usual", day: 1},
		},
		faults: map[string]faultSpec{
			"/robots.txt": {kind: "503"},
		},
	}}
}

// scenario is a simulated web that changes day by day, and the manifest
// that says what a crawl of it should find.
type scenario struct {
	name  string
	days  int
	web   *simweb.Web
	day   atomic.Int32
	mu    sync.Mutex // the blogs' documents
	blogs []*blog
}

// blog is one blog as served, and the documents that change with the day.
type blog struct {
	spec    blogSpec
	host    *simweb.Host
	robots  *simweb.Resource // nil while robots.txt's fault is still to strike
	home    *simweb.Resource
	feed    *simweb.Resource
	sitemap *simweb.Resource // nil without one
	bodies  map[*simweb.Resource]string
}

func newScenario(name string, web *simweb.Web) (*scenario, error) {
	if name != "days" {
		return nil, fmt.Errorf("unknown scenario %q (known: days)", name)
	}
	s := &scenario{name: name, days: scenarioDays, web: web}
	s.day.Store(1)
	for _, spec := range daysBlogs() {
		s.blogs = append(s.blogs, s.build(spec))
	}
	s.SetDay(1)
	return s, nil
}

func (s *scenario) today() int { return int(s.day.Load()) }

// build serves a blog on its host, as of day 1.
func (s *scenario) build(spec blogSpec) *blog {
	b := &blog{spec: spec, host: s.web.Host(spec.host), bodies: make(map[*simweb.Resource]string)}
	h := b.host
	withFault := func(path string, ok http.Handler) http.Handler {
		if f, found := spec.faults[path]; found {
			return newFlaky(1, f.handler(), ok, nil)
		}
		return ok
	}
	route := func(path string, handler http.Handler) {
		if !strings.Contains(path, "?") {
			handler = withoutQuery(handler)
		}
		h.Handle(path, handler)
	}

	if f, found := spec.faults["/robots.txt"]; found {
		// Served by the host as its robots.txt once healed, so that the
		// server-side checker reads the file's rules again.
		current := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			res := b.robots
			s.mu.Unlock()
			res.ServeHTTP(w, r)
		})
		h.Handle("/robots.txt", newFlaky(1, f.handler(), current, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			body := b.robotsBody(s.today())
			b.robots = h.Robots(body)
			b.bodies[b.robots] = body
		}))
	} else {
		b.robots = h.Robots("")
	}
	b.home = simweb.NewResource("text/html; charset=utf-8", "")
	route("/", b.home)
	b.feed = simweb.NewResource("application/rss+xml", "")
	route(spec.feedPath, withFault(spec.feedPath, b.feed))
	if spec.sitemapPath != "" {
		b.sitemap = simweb.NewResource("application/xml", "")
		route(spec.sitemapPath, withFault(spec.sitemapPath, b.sitemap))
	}
	for _, p := range spec.posts {
		page := simweb.NewResource("text/html; charset=utf-8", "")
		page.Update(postPage(spec.host, p), postDate(spec, p))
		route(p.path, publishedFrom(p.day, s.today, withFault(p.path, page)))
	}
	return b
}

// SetDay serves day's web: the documents that differ from what is served
// get the new body, a new ETag and day's date as Last-Modified; the others
// keep their validators, so a conditional re-read gets 304.
func (s *scenario) SetDay(day int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.day.Store(int32(day))
	for _, b := range s.blogs {
		docs := map[*simweb.Resource]string{b.home: b.homeBody(day), b.feed: b.feedBody(day)}
		if b.robots != nil {
			docs[b.robots] = b.robotsBody(day)
		}
		if b.sitemap != nil {
			docs[b.sitemap] = b.sitemapBody(day)
		}
		for res, body := range docs {
			if old, ok := b.bodies[res]; ok && old == body {
				continue
			}
			res.Update(body, dayDate(day))
			b.bodies[res] = body
		}
	}
}

func (b *blog) url(path string) string { return "http://" + b.spec.host + path }

func (b *blog) robotsBody(day int) string {
	var sb strings.Builder
	if day < b.spec.feedDisallowed {
		sb.WriteString("User-agent: CorpusBot\nDisallow: /feed\n\n")
	}
	sb.WriteString(b.spec.rules)
	if b.spec.declareSitemap {
		fmt.Fprintf(&sb, "\nSitemap: %s\n", b.url(b.spec.sitemapPath))
	}
	return sb.String()
}

// published is the posts out by day, newest first.
func (b *blog) published(day int) []postSpec {
	var out []postSpec
	for i := len(b.spec.posts) - 1; i >= 0; i-- {
		if p := b.spec.posts[i]; p.day <= day {
			out = append(out, p)
		}
	}
	return out
}

func (b *blog) homeBody(day int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>\n", b.spec.host)
	if b.spec.declareFeed {
		fmt.Fprintf(&sb, "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Posts\" href=\"%s\">\n", html.EscapeString(b.spec.feedPath))
	}
	fmt.Fprintf(&sb, "</head><body><h1>%s</h1><ul>\n", b.spec.host)
	for _, p := range b.published(day) {
		if !strings.HasPrefix(p.path, "/private/") {
			fmt.Fprintf(&sb, "<li><a href=\"%s\">%s</a></li>\n", p.path, html.EscapeString(p.title))
		}
	}
	sb.WriteString("</ul></body></html>\n")
	return sb.String()
}

func (b *blog) feedBody(day int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>%s</title><link>%s</link><description>Posts of %s</description>\n",
		b.spec.host, b.url("/"), b.spec.host)
	for _, p := range b.published(day) {
		if p.sitemapOnly {
			continue
		}
		fmt.Fprintf(&sb, "<item><title>%s</title><link>%s</link><guid>%s</guid><pubDate>%s</pubDate><description>%s</description></item>\n",
			html.EscapeString(p.title), b.url(p.path), b.url(p.path), postDate(b.spec, p).Format(time.RFC1123Z),
			html.EscapeString("A summary of "+p.title+"."))
	}
	sb.WriteString("</channel></rss>\n")
	return sb.String()
}

func (b *blog) sitemapBody(day int) string {
	var sb strings.Builder
	sb.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for _, p := range b.published(day) {
		fmt.Fprintf(&sb, "<url><loc>%s</loc><lastmod>%s</lastmod></url>\n", b.url(p.path), postDate(b.spec, p).Format(time.RFC3339))
	}
	sb.WriteString("</urlset>\n")
	return sb.String()
}

// postDate: the posts already out on day 1 are a few days old, one every
// other day; a later post is dated its day.
func postDate(spec blogSpec, p postSpec) time.Time {
	if p.day > 1 {
		return dayDate(p.day)
	}
	for i, q := range spec.posts {
		if q.path == p.path {
			return dayDate(1).AddDate(0, 0, -2*(len(spec.posts)-i))
		}
	}
	return dayDate(1)
}

// postPage is a post's HTML: an article long enough to be read as one.
func postPage(host string, p postSpec) string {
	var sb strings.Builder
	title := html.EscapeString(p.title)
	fmt.Fprintf(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body><article><h1>%s</h1>\n", title, title)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&sb, "<p>Paragraph %d of %s on %s. The simulated web keeps every word of it the same from day to day, "+
			"so that a conditional request for it is answered with 304 and a crawler that asks again learns nothing new.</p>\n", i, title, host)
	}
	sb.WriteString("</article></body></html>\n")
	return sb.String()
}

// manifest is what the scenario holds, for the script that checks a crawl
// of it: every post with whether robots.txt (as of the last day) lets
// CorpusBot have it, every fault, the well-known paths and the candidates
// among them that answer with a real document.
type manifest struct {
	Scenario   string          `json:"scenario"`
	Days       int             `json:"days"`
	Day        int             `json:"day"`
	WellKnown  []string        `json:"well_known"`
	Candidates []string        `json:"candidates"`
	Disallowed []disallowed    `json:"disallowed_feeds"`
	Faults     []faultManifest `json:"faults"`
	Blogs      []blogManifest  `json:"blogs"`
}

type disallowed struct {
	URL         string `json:"url"`
	AllowedFrom int    `json:"allowed_from"` // the first day robots.txt allows it
}

type faultManifest struct {
	URL        string `json:"url"`
	Kind       string `json:"kind"`
	Status     int    `json:"status"` // 0: the connection is dropped unanswered
	RetryAfter int    `json:"retry_after"`
	Times      int    `json:"times"`
}

type blogManifest struct {
	Home     string         `json:"home"`
	About    string         `json:"about"`
	Feeds    []string       `json:"feeds"`
	Sitemaps []string       `json:"sitemaps"`
	Posts    []postManifest `json:"posts"`
}

type postManifest struct {
	URL     string `json:"url"`
	Day     int    `json:"day"`
	Allowed bool   `json:"allowed"`
	Faulted bool   `json:"faulted"`
}

func (s *scenario) Manifest() manifest {
	m := manifest{Scenario: s.name, Days: s.days, Day: s.today(), WellKnown: wellKnownPaths}
	for _, b := range s.blogs {
		spec := b.spec
		last := robots.Parse([]byte(b.robotsBody(s.days))).For("CorpusBot")
		bm := blogManifest{Home: b.url("/"), About: spec.about, Feeds: []string{b.url(spec.feedPath)}, Sitemaps: []string{}}
		if spec.sitemapPath != "" {
			bm.Sitemaps = append(bm.Sitemaps, b.url(spec.sitemapPath))
		}
		for _, p := range spec.posts {
			_, faulted := spec.faults[p.path]
			bm.Posts = append(bm.Posts, postManifest{URL: b.url(p.path), Day: p.day, Allowed: last.Allowed(p.path), Faulted: faulted})
		}
		m.Blogs = append(m.Blogs, bm)
		for _, path := range []string{spec.feedPath, spec.sitemapPath} {
			for _, w := range wellKnownPaths {
				if path != "" && path == w {
					m.Candidates = append(m.Candidates, b.url(path))
				}
			}
		}
		if spec.feedDisallowed > 0 {
			m.Disallowed = append(m.Disallowed, disallowed{URL: b.url(spec.feedPath), AllowedFrom: spec.feedDisallowed})
		}
		for _, path := range slices.Sorted(maps.Keys(spec.faults)) {
			f := spec.faults[path]
			m.Faults = append(m.Faults, faultManifest{URL: b.url(path), Kind: f.kind, Status: f.status(), RetryAfter: f.retryAfter, Times: 1})
		}
	}
	return m
}
