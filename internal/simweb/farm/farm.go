// Package farm is a population of blogs generated on demand, for
// simweb.Web.Fallback: every document of every site — robots.txt, the
// homepage, feed pages, sitemaps and post pages — is computed per request
// from a hash of the site's host name and the simulated day, so that a
// hundred thousand sites cost no memory at all. Each document has an ETag
// and a Last-Modified and answers conditional requests with 304, so a
// second day is mostly 304s and the few posts published overnight.
//
// The sites take the shapes package demo's blogs have (Shape,
// DemoShapes): RSS, Atom and JSON feeds, ?paged=N and rel="next"
// catalogues, sitemaps named in robots.txt, at the well-known path or as
// yearly indexes, Crawl-delay, robots.txt answering 404 or 503 or
// disallowing CorpusBot, noindex posts, client-rendered shells and a
// firewall answering 403.
package farm

import (
	"math"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Config describes a farm. Only Now is required.
type Config struct {
	// Start is the morning of day 1: the documents of day d are served
	// from Start + (d-1)·24h on, with the posts published overnight.
	Start time.Time
	// Now is the simulated time the documents are served as of.
	Now  func() time.Time
	Seed uint64
	// Shapes are the kinds of site, each drawn with its Weight (nil:
	// DemoShapes).
	Shapes []Shape
	// MinPosts and MaxPosts bound the posts a site has on day 1, drawn
	// log-uniformly between them (defaults 3 and 40).
	MinPosts, MaxPosts int
	// PageSize is the entries a feed page and the homepage show (default 10).
	PageSize int
	// Active is the share of sites that publish a post on a given day
	// after the first (default 0.1).
	Active float64
	// Words is about how long a post's text is (default 120 words; a
	// full-content feed carries all of it). SizesReal ignores it.
	Words int
	// Sizes is how large pages and feeds are (default SizesSmall).
	Sizes Sizes
	// HTTPS makes every URL the sites publish (links, feed entries,
	// sitemaps, robots.txt's Sitemap lines) https://, as nearly every blog's
	// is: a crawler given https homepages then stays on https, served by
	// simweb's https server (Web.ClientTLS).
	HTTPS bool
}

// Farm serves a generated population; it holds no state of its own but
// a table worked out on first use, and is safe for concurrent use.
type Farm struct {
	cfg Config
	// commentTimesText is what commentTimes returns.
	commentTimesOnce sync.Once
	commentTimesText []string
}

// New makes a farm; the zero fields of cfg take their defaults.
func New(cfg Config) *Farm {
	if cfg.Start.IsZero() {
		cfg.Start = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	}
	if cfg.Shapes == nil {
		cfg.Shapes = DemoShapes()
	}
	cfg.MinPosts = max(1, or(cfg.MinPosts, 3))
	cfg.MaxPosts = max(cfg.MinPosts, or(cfg.MaxPosts, 40))
	cfg.PageSize = or(cfg.PageSize, 10)
	if cfg.Active == 0 {
		cfg.Active = 0.1
	}
	cfg.Words = or(cfg.Words, 120)
	return &Farm{cfg: cfg}
}

func or(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Handler serves host's site: the func simweb.Web.Fallback takes.
func (f *Farm) Handler(host string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.serve(f.Site(host, f.Day(f.cfg.Now())), w, r)
	})
}

// Day is the day (from 1) whose documents are served at t.
func (f *Farm) Day(t time.Time) int {
	if t.Before(f.cfg.Start) {
		return 1
	}
	return 1 + int(t.Sub(f.cfg.Start)/(24*time.Hour))
}

// DayStart is when day d begins.
func (f *Farm) DayStart(d int) time.Time { return f.cfg.Start.Add(time.Duration(d-1) * 24 * time.Hour) }

// Site is one site as it stands on one day.
type Site struct {
	Host  string
	Shape Shape
	Day   int
	// Posts is how many posts the site has (none is ever removed); Initial
	// is how many it had on day 1. Post n (from 1) is the n-th published.
	Posts, Initial int
	seed           uint64
	step           time.Duration // between the posts before day 1
	farm           *Farm
}

// Site describes host's site on day d.
func (f *Farm) Site(host string, day int) Site {
	seed := hashOf(f.cfg.Seed, host)
	r := rand.New(rand.NewPCG(seed, 0xfa53))
	s := Site{Host: host, Day: max(1, day), seed: seed, farm: f, Shape: f.pickShape(r)}
	minPosts, maxPosts := f.cfg.MinPosts, f.cfg.MaxPosts
	if s.Shape.MinPosts > 0 || s.Shape.MaxPosts > 0 {
		minPosts = max(1, or(s.Shape.MinPosts, minPosts))
		maxPosts = max(minPosts, or(s.Shape.MaxPosts, maxPosts))
	}
	lo, hi := math.Log(float64(minPosts)), math.Log(float64(maxPosts)+0.999)
	s.Initial = int(math.Exp(lo + r.Float64()*(hi-lo)))
	// Posts spread over the years before day 1: every few days for a small
	// blog, every few hours for a big one, as package demo's do.
	s.step = min(3*24*time.Hour, 3*365*24*time.Hour/time.Duration(s.Initial))
	s.Posts = s.Initial
	for d := 2; d <= s.Day; d++ {
		s.Posts += s.newOn(d)
	}
	return s
}

func (f *Farm) pickShape(r *rand.Rand) Shape {
	total := 0
	for _, sh := range f.cfg.Shapes {
		total += max(1, sh.Weight)
	}
	n := r.IntN(total)
	for _, sh := range f.cfg.Shapes {
		if n -= max(1, sh.Weight); n < 0 {
			return sh
		}
	}
	return f.cfg.Shapes[0]
}

// newOn is how many posts the site published in the night before day d.
func (s Site) newOn(d int) int {
	if s.Shape.Feed == FeedNone && s.Shape.Sitemap == SitemapNone {
		return 0 // a handmade site: nothing would show it
	}
	r := rand.New(rand.NewPCG(s.seed, uint64(d)))
	if r.Float64() < s.farm.cfg.Active {
		return 1
	}
	return 0
}

// NewOn is how many posts the site published in the night before day d
// (0 for day 1).
func (s Site) NewOn(d int) int {
	if d < 2 {
		return 0
	}
	return s.newOn(d)
}

// published is when post n went up.
func (s Site) published(n int) time.Time {
	start := s.farm.cfg.Start
	if n <= s.Initial {
		return start.Add(-time.Duration(s.Initial-n+1) * s.step)
	}
	n -= s.Initial
	for d := 2; ; d++ {
		k := s.newOn(d)
		if n <= k {
			// Overnight: from eight hours before the day's start, one an hour.
			return s.farm.DayStart(d).Add(-8*time.Hour + time.Duration(n-1)*time.Hour)
		}
		n -= k
	}
}

// hashOf is FNV-1a (64-bit) of seed's eight bytes, little end first, and
// of each part followed by a zero byte: what hash/fnv's New64a gives,
// worked here so that a hash costs no hasher on the heap.
func hashOf(seed uint64, parts ...string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := range 8 {
		h ^= uint64(byte(seed >> (8 * i)))
		h *= prime
	}
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			h ^= uint64(p[i])
			h *= prime
		}
		h *= prime // the zero byte: h ^= 0 leaves h as it is
	}
	return h
}
