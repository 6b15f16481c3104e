package demo

import "fmt"

// archetypes are the kinds of blog the demo population is made of: the
// publishing stacks and the robots.txt answers a crawler of blogs meets.
var archetypes = []struct {
	name string
	spec Spec
}{
	// WordPress: RSS summaries, ?paged=N, a sitemap index, the stock robots.txt.
	{"press", Spec{Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapIndex, Robots: RobotsSection}},
	// WordPress with full-content feeds and an undeclared /sitemap.xml.
	{"fulltext", Spec{Feed: FeedRSS, Full: true, Catalogue: CataloguePaged, Sitemap: SitemapWellKnown}},
	// A static site generator: Atom with RFC 5005 next pages, no robots.txt.
	{"hugo", Spec{Feed: FeedAtom, Catalogue: CatalogueNext, Sitemap: SitemapWellKnown, Robots: Robots404}},
	// JSON Feed, full content, next_url pages, a Crawl-delay.
	{"jsonfeed", Spec{Feed: FeedJSON, Full: true, Catalogue: CatalogueNext, Sitemap: SitemapRobots, Robots: RobotsCrawlDelay}},
	// A feed no <link> tag declares (found at /atom.xml), no sitemap.
	{"unlinked", Spec{Feed: FeedAtom, Unlinked: true, Catalogue: CatalogueNone}},
	// Posts under /private/ that robots.txt disallows.
	{"section", Spec{Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapRobots, Robots: RobotsSection, Private: 4}},
	// Some posts say noindex.
	{"noindex", Spec{Feed: FeedAtom, Catalogue: CatalogueNext, Sitemap: SitemapRobots, Noindex: 3}},
	// Post pages render only in the browser.
	{"spa", Spec{Feed: FeedRSS, Catalogue: CatalogueNone, Sitemap: SitemapRobots, Shell: true}},
	// The feed is disallowed, the sitemap is not.
	{"nofeed", Spec{Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapIndex, Robots: RobotsNoFeed}},
	// No feed and no sitemap: a gap for a crawler that does not walk sites.
	{"handmade", Spec{Feed: FeedNone, Sitemap: SitemapNone}},
	// robots.txt names CorpusBot and disallows everything.
	{"private", Spec{Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapRobots, Robots: RobotsDisallowUs}},
	// robots.txt answers 503: crawling paused.
	{"broken", Spec{Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapWellKnown, Robots: Robots503}},
	// A firewall answers 403 to everything but robots.txt.
	{"walled", Spec{Feed: FeedRSS, Catalogue: CataloguePaged, Sitemap: SitemapRobots, Refuse: true}},
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
		Host: "proposal.example", Posts: posts, Feed: FeedRSS, Catalogue: CataloguePaged,
		Sitemap: SitemapRobots, Robots: RobotsAllowAll,
		Changes: Rates{New: newPerDay, Modified: modifiedPerDay},
	}
}
