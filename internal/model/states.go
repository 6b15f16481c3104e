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

// Sitemap discovery routes.
const (
	ViaRobots    = "robots"
	ViaWellKnown = "well-known"
)

// SitemapSkipped is the State of a sitemap recorded and never read: its
// name says it lists no posts (Sitemap.Kind says what it lists). It is never
// due.
const SitemapSkipped = "skipped"
