package model

// Feed states.
const (
	FeedActive     = "active"
	FeedDisallowed = "disallowed"
	FeedError      = "error"
)

// Catalogue walk progress of a feed.
const (
	CatalogueNone        = "none"        // not started
	CataloguePending     = "pending"     // started, pages remain
	CatalogueDone        = "done"        // finished: never started again
	CatalogueInterrupted = "interrupted" // stopped by an error or a shutdown; resumes at NextPage
)

// Post states.
const (
	PostIndexed    = "indexed"
	PostPending    = "pending"
	PostNoindex    = "noindex"
	PostRemoved    = "removed"
	PostDisallowed = "disallowed"
	PostRefused    = "refused"
	PostError      = "error"
	PostShell      = "shell"
	PostSkipped    = "skipped"
)

// Where a post's text came from.
const (
	TextFromFeed = "feed"
	TextFromPage = "page"
)

// Sitemap discovery routes. A sitemap found in an index is stored with its
// top-level sitemap's route; the public site shows it as ViaIndex.
const (
	ViaRobots    = "robots"
	ViaWellKnown = "well-known"
	ViaIndex     = "index"
)

// Sitemap states.
const (
	SitemapActive     = "active"     // read (or to be read); its last read succeeded, or it was never read
	SitemapDisallowed = "disallowed" // robots.txt disallows it
	SitemapError      = "error"      // its last read failed
	// SitemapSkipped is the State of a sitemap recorded and never read: its
	// name says it lists no posts (Sitemap.Kind says what it lists). It is
	// never due.
	SitemapSkipped = "skipped"
)

// FeedStates, CatalogueStates and SitemapStates list every state a feed, a
// feed's catalogue walk and a sitemap can hold (PostStates the posts').
var (
	FeedStates      = []string{FeedActive, FeedDisallowed, FeedError}
	CatalogueStates = []string{CatalogueNone, CataloguePending, CatalogueDone, CatalogueInterrupted}
	SitemapStates   = []string{SitemapActive, SitemapDisallowed, SitemapError, SitemapSkipped}
)
