package demo

import (
	"fmt"

	"corpus.blog/corpusbot/internal/simweb/farm"
)

// archetypes are the kinds of blog the demo population is made of: the
// publishing stacks and the robots.txt answers a crawler of blogs meets.
var archetypes = []struct {
	name string
	spec Spec
}{
	// WordPress: RSS summaries, ?paged=N, a sitemap index, the stock robots.txt.
	{"press", Spec{Feed: farm.FeedRSS, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapIndex, Robots: farm.RobotsSection}},
	// WordPress with full-content feeds and an undeclared /sitemap.xml.
	{"fulltext", Spec{Feed: farm.FeedRSS, Full: true, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapWellKnown}},
	// A static site generator: Atom with RFC 5005 next pages, no robots.txt.
	{"hugo", Spec{Feed: farm.FeedAtom, Catalogue: farm.CatalogueNext, Sitemap: farm.SitemapWellKnown, Robots: farm.Robots404}},
	// JSON Feed, full content, next_url pages, a Crawl-delay.
	{"jsonfeed", Spec{Feed: farm.FeedJSON, Full: true, Catalogue: farm.CatalogueNext, Sitemap: farm.SitemapRobots, Robots: farm.RobotsCrawlDelay}},
	// A feed no <link> tag declares (found at /atom.xml), no sitemap.
	{"unlinked", Spec{Feed: farm.FeedAtom, Unlinked: true, Catalogue: farm.CatalogueNone}},
	// Posts under /private/ that robots.txt disallows.
	{"section", Spec{Feed: farm.FeedRSS, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapRobots, Robots: farm.RobotsSection, Private: 4}},
	// Some posts say noindex.
	{"noindex", Spec{Feed: farm.FeedAtom, Catalogue: farm.CatalogueNext, Sitemap: farm.SitemapRobots, Noindex: 3}},
	// Post pages render only in the browser.
	{"spa", Spec{Feed: farm.FeedRSS, Catalogue: farm.CatalogueNone, Sitemap: farm.SitemapRobots, Shell: true}},
	// The feed is disallowed, the sitemap is not.
	{"nofeed", Spec{Feed: farm.FeedRSS, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapIndex, Robots: farm.RobotsNoFeed}},
	// No feed and no sitemap: a gap for a crawler that does not walk sites.
	{"handmade", Spec{Feed: farm.FeedNone, Sitemap: farm.SitemapNone}},
	// robots.txt names CorpusBot and disallows everything.
	{"private", Spec{Feed: farm.FeedRSS, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapRobots, Robots: farm.RobotsDisallowUs}},
	// robots.txt answers 503: crawling paused.
	{"broken", Spec{Feed: farm.FeedRSS, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapWellKnown, Robots: farm.Robots503}},
	// A firewall answers 403 to everything but robots.txt.
	{"walled", Spec{Feed: farm.FeedRSS, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapRobots, Refuse: true}},
}

// DemoSpecs is the demo's population: three blogs of every archetype, of
// different sizes (scale multiplies the post counts; 1 is the demo's): a
// busy one that adds, edits and now and then removes posts, a quieter one,
// and a dormant one that changes nothing (most blogs, most days).
func DemoSpecs(scale float64) []Spec {
	sizes := []int{120, 60, 24}
	rates := []Rates{{New: 2, Modified: 2, Removed: 1}, {New: 1, Modified: 1}, {}}
	var out []Spec
	for _, a := range archetypes {
		for i, n := range sizes {
			s := a.spec
			s.Host = fmt.Sprintf("%s-%d.example", a.name, i+1)
			s.Posts = max(3, int(float64(n)*scale))
			s.Changes = rates[i]
			out = append(out, s)
		}
	}
	return out
}

// ProposalSpec is the site of the decent-crawling proposal: one blog of
// 10,000 posts with 50 changes a day (new and modified), a feed and a
// sitemap named in robots.txt.
func ProposalSpec(posts, newPerDay, modifiedPerDay int) Spec {
	return Spec{
		Host: "proposal.example", Posts: posts, Feed: farm.FeedRSS, Catalogue: farm.CataloguePaged,
		Sitemap: farm.SitemapRobots, Robots: farm.RobotsAllowAll,
		Changes: Rates{New: newPerDay, Modified: modifiedPerDay},
	}
}
