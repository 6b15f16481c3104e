package demo

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
)

// start is the simulated morning of day 1, when the first crawl begins.
var start = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

// DayStart is when the crawl of day d (from 1) begins.
func DayStart(d int) time.Time { return start.Add(time.Duration(d-1) * 24 * time.Hour) }

// Population is a set of blogs as of one simulated day, and (once Serve has
// put it on a web) their sites.
type Population struct {
	Blogs []*Blog
	seed  uint64
	sites []*site
}

// NewPopulation builds the blogs of specs as they stand on day 1; the same
// specs and seed always give the same posts, texts and dates.
func NewPopulation(specs []Spec, seed uint64) *Population {
	p := &Population{seed: seed}
	for i, s := range specs {
		p.Blogs = append(p.Blogs, newBlog(s, seed+uint64(i)*1_000_003))
	}
	return p
}

func newBlog(s Spec, seed uint64) *Blog {
	b := &Blog{Spec: s}
	// Posts spread over the years before day 1: every few days for a small
	// blog, every few hours for a big one.
	step := min(3*24*time.Hour, 3*365*24*time.Hour/time.Duration(max(1, s.Posts)))
	t := start.Add(-time.Duration(s.Posts+1) * step)
	for i := 0; i < s.Posts; i++ {
		t = t.Add(step)
		b.Posts = append(b.Posts, b.newPost(seed+uint64(i)*7, t))
	}
	return b
}

// newPost is the blog's next post, published at t.
func (b *Blog) newPost(seed uint64, t time.Time) *Post {
	n := len(b.Posts) + 1
	p := &Post{Title: title(seed), Published: t, Updated: t, seed: seed}
	slug := strings.ToLower(strings.Join(strings.Fields(p.Title)[:3], "-"))
	switch {
	case b.Private > 0 && n%b.Private == 0:
		p.Path = fmt.Sprintf("/private/%s-%d/", slug, n)
	default:
		p.Path = fmt.Sprintf("/%s/%s-%d/", t.Format("2006/01/02"), slug, n)
	}
	p.Noindex = b.Noindex > 0 && n%b.Noindex == 0
	return p
}

// Serve puts every blog on web, as it stands, its documents dated when
// they last changed.
func (p *Population) Serve(web *simweb.Web) {
	for _, b := range p.Blogs {
		s := newSite(web, b)
		s.publish(start.Add(-time.Hour))
		p.sites = append(p.sites, s)
	}
}

// Homepages are the blogs' homepage URLs, the crawlers' seeds.
func (p *Population) Homepages() []string {
	out := make([]string, len(p.Blogs))
	for i, b := range p.Blogs {
		out[i] = b.URL("/")
	}
	return out
}

// ChangeKind is what happened to a post.
type ChangeKind string

// The changes a day brings.
const (
	ChangeNew      ChangeKind = "new"
	ChangeModified ChangeKind = "modified"
	ChangeRemoved  ChangeKind = "removed"
)

// Change is one post that changed before a day's crawl.
type Change struct {
	Blog    *Blog
	Post    *Post
	Kind    ChangeKind
	At      time.Time
	Allowed bool // robots.txt lets CorpusBot fetch it and the site answers
}

// Advance brings the population to day d (from 2): each blog adds, modifies
// and removes posts during the night before, as its rates and the seed
// decide, and its site is republished. It returns what changed.
func (p *Population) Advance(d int) []Change {
	var out []Change
	morning := DayStart(d)
	for i, b := range p.Blogs {
		r := rand.New(rand.NewPCG(p.seed+uint64(i), uint64(d)))
		changes := b.advance(r, morning)
		out = append(out, changes...)
		if i < len(p.sites) {
			p.sites[i].publish(morning.Add(-30 * time.Minute))
		}
	}
	return out
}

// advance applies one night's changes to the blog.
func (b *Blog) advance(r *rand.Rand, morning time.Time) []Change {
	var out []Change
	rules := b.rules(agentToken)
	note := func(p *Post, k ChangeKind, at time.Time) {
		out = append(out, Change{Blog: b, Post: p, Kind: k, At: at, Allowed: rules.Allowed(p.Path)})
	}
	nNew, nMod, nDel := draw(r, b.Changes.New), draw(r, b.Changes.Modified), draw(r, b.Changes.Removed)
	night := morning.Add(-20 * time.Hour)
	for i := 0; i < nNew; i++ {
		at := night.Add(time.Duration(i+1) * 16 * time.Hour / time.Duration(nNew+1))
		p := b.newPost(r.Uint64(), at)
		b.Posts = append(b.Posts, p)
		note(p, ChangeNew, at)
	}
	touched := map[*Post]bool{}
	for _, p := range out {
		touched[p.Post] = true
	}
	pick := func() *Post {
		live := b.live()
		for tries := 0; tries < 20 && len(live) > 0; tries++ {
			// Half the edits go to the newest posts, as on real blogs.
			var p *Post
			if r.IntN(2) == 0 {
				p = live[r.IntN(min(len(live), b.feedSize()))]
			} else {
				p = live[r.IntN(len(live))]
			}
			if !touched[p] {
				touched[p] = true
				return p
			}
		}
		return nil
	}
	for i := 0; i < nMod; i++ {
		if p := pick(); p != nil {
			at := morning.Add(-time.Duration(2+i) * time.Hour)
			p.Rev++
			p.Updated = at
			note(p, ChangeModified, at)
		}
	}
	for i := 0; i < nDel; i++ {
		if p := pick(); p != nil {
			p.Removed = true
			note(p, ChangeRemoved, morning.Add(-time.Hour))
		}
	}
	return out
}

// draw is a day's count for a rate: the rate itself for a busy blog (a rate
// of 5 or more: the benchmark site publishes steadily), else 0 to rate.
func draw(r *rand.Rand, rate int) int {
	if rate <= 0 {
		return 0
	}
	if rate >= 5 {
		return rate
	}
	return r.IntN(rate + 1)
}

// agentToken is the product token whose robots.txt group decides what both
// crawlers may fetch, so that they are allowed exactly the same URLs.
const agentToken = "CorpusBot"
