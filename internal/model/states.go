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

// WebSub subscription states, one per feed whose hub the crawler asks to
// push (package push speaks the protocol; the store keeps the row).
const (
	// SubscriptionWanted: the feed declares a hub and no request is out: a
	// subscription request is due (again, after a failure or a denial's
	// back-off).
	SubscriptionWanted = "wanted"
	// SubscriptionRequested: a subscribe request was sent; the hub's
	// verification of intent (WebSub §5.3) is awaited.
	SubscriptionRequested = "requested"
	// SubscriptionActive: the hub verified a subscription; deliveries are
	// taken until the lease expires (renewal re-sends subscribe, staying
	// active).
	SubscriptionActive = "active"
	// SubscriptionUnsubscribing: an unsubscribe request was sent (the
	// source was paused); its verification is awaited.
	SubscriptionUnsubscribing = "unsubscribing"
	// SubscriptionInactive: no subscription (unsubscribed, denied, or the
	// source paused): deliveries are answered 410 Gone, so the hub drops us
	// (WebSub §8).
	SubscriptionInactive = "inactive"
)

// FeedStates, CatalogueStates, SitemapStates and SubscriptionStates list
// every state a feed, a feed's catalogue walk, a sitemap and a WebSub
// subscription can hold (PostStates the posts', SourceStates the sources').
// The strings are stable: they are stored.
var (
	FeedStates         = []string{FeedActive, FeedDisallowed, FeedError}
	CatalogueStates    = []string{CatalogueNone, CataloguePending, CatalogueDone, CatalogueInterrupted}
	SitemapStates      = []string{SitemapActive, SitemapDisallowed, SitemapError, SitemapSkipped}
	SubscriptionStates = []string{SubscriptionWanted, SubscriptionRequested, SubscriptionActive, SubscriptionUnsubscribing, SubscriptionInactive}
)
