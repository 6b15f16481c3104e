// Package store is the crawler's memory: sources, the robots state of their
// origins, feeds, sitemaps, posts, the 403 refusal list, the request log,
// WebSub subscriptions and the public site's questions.
//
// DB is the store, all its SQL written once (db.go) for both backends:
// SQLite (store/sqlite, the embedded default) and PostgreSQL
// (store/postgres, a cluster of workers on one database). It speaks in the
// crawler's terms, takes and returns time.Time, and every method that
// changes more than one row does so atomically, so that a process killed at
// any moment leaves either all of a change or none of it. The crawler, the
// commands and the wiring (package app) hold a *DB itself; a package that
// wants a stand-in for a few of its methods declares just those where it
// uses them (the fetcher's robots cache and refusal list, the public site's
// web.Data, the crawler's request log). The suites every backend runs are
// in storetest, which imports nothing above this package.
package store

import (
	"math"
	"time"
)

// Source is a blog, known by its homepage URL.
type Source struct {
	ID              int64
	URL             string
	Site            string // the registrable domain of URL's host (model.SiteOfURL)
	Added           time.Time
	Discovered      time.Time // robots and feeds looked for; zero: not yet
	SitemapsChecked time.Time // sitemaps looked for; zero: not yet
	DiscoverAfter   time.Time // discovery postponed until then (a failure)
	SitemapsAfter   time.Time // sitemap discovery postponed until then
	Attempts        int       // discovery (or sitemap discovery) tries that failed in a row
	Error           string    // why the last one failed
}

// Retry is what a try that failed with a fault that says "try later"
// leaves of an item: it stays owed, counts its failed tries in a row, and
// is not asked again before At.
type Retry struct {
	Attempts int
	At       time.Time
	Error    string
}

// SiteQuery asks for sites with work due (the frontier of package crawl).
type SiteQuery struct {
	Now            time.Time
	SitemapsBefore time.Time // sitemaps last read before this are due (Now - SITEMAP_INTERVAL)
	// Round names the asking worker's round: sites it finished in this
	// round (CheckInSite with it) are not due again until the next.
	Round string
	// After is a source ID: only sources after it are looked at, so that a
	// round walks the sources once, in order, a batch at a time.
	After int64
	// WaitBefore leaves out the sites whose stored next permitted request
	// (site_waits) is at or after it: Now plus the frontier's horizon.
	// Zero leaves out none.
	WaitBefore time.Time
}

// waitBefore is q.WaitBefore as stored, the largest time when unset.
func (q SiteQuery) waitBefore() int64 {
	if q.WaitBefore.IsZero() {
		return math.MaxInt64
	}
	return ts(q.WaitBefore)
}

// DueSite is a source with work due and its site.
type DueSite struct {
	SourceID int64
	Site     string
}

// Feed is one feed of a source.
type Feed struct {
	ID           int64
	SourceID     int64
	URL          string
	State        string
	ETag         string
	LastModified string
	LastRead     time.Time // last read attempt that got an answer (200 or 304)
	Checked      time.Time // last time the feed was tried at all
	Error        string
	Title        string    // as the feed last stated it; "" keeps the stored one
	History      string    // schedule.History as text: what its polls have shown of its publishing
	NextDue      time.Time // when an active feed is next read (zero: at once)
	Catalogue    string    // CatalogueNone, …
	NextPage     string    // the next catalogue page to read
	Pages        int       // catalogue pages read so far
	Attempts     int       // reads (or catalogue pages) that failed in a row with a fault that says "try later"
	RetryAt      time.Time // after such a failure, not read again before this
}

// Sitemap is one sitemap (or sitemap index, or index child) of a source.
type Sitemap struct {
	ID           int64
	SourceID     int64
	URL          string
	Via          string // ViaRobots or ViaWellKnown
	ParentID     int64  // the index that listed it, 0 for a top-level one
	State        string // one of model.SitemapStates
	ETag         string
	LastModified string
	LastRead     time.Time
	Lastmod      time.Time // as its parent index last stated it
	ReadLastmod  time.Time // the parent's lastmod when this child was last read
	Error        string
	// Note says what the last whole-or-not read found worth telling though
	// the sitemap is active: a cut at the protocol's limit, or a body that
	// broke off ("" when the read was whole).
	Note     string
	Attempts int       // reads that failed in a row with a fault that says "try later"
	RetryAt  time.Time // after such a failure, not read again before this
	// Kind is what its name says it lists (sitemapclass.Kind's words: posts,
	// pages, taxonomies, authors, other, unknown; "" not yet classified).
	// A sitemap of pages, taxonomies, authors or other is recorded in
	// State SitemapSkipped and never read.
	Kind string
	// The entries its last read did not queue, by the kind their shape
	// says (sitemapclass.WantsPage): counted, not stored as posts.
	SkippedPages, SkippedTaxonomies, SkippedAuthors, SkippedOther int
}

// Post is one article.
type Post struct {
	ID        int64
	URL       string
	SourceID  int64
	Title     string
	Published time.Time
	Lastmod   time.Time
	State     string
	TextFrom  string
	Text      string // kept privately, never exported
	// Markdown is the text's Markdown form as the extractor wrote it, ""
	// for a post stored before it kept one or whose text came from a feed;
	// read only by ExportPosts with ExportFilter.Markdown.
	Markdown     string
	ETag         string
	LastModified string
	Citations    []string
	Due          bool // a page fetch is owed: new, or modified since the last fetch
	Fetched      time.Time
	Attempts     int       // page fetches that failed in a row with a fault that says "try later"
	RetryAt      time.Time // after such a failure, not fetched again before this
	Error        string    // why the last fetch failed, if it did
	// FirstSeen is when the crawl first met the post (a feed, sitemap or
	// IndexNow naming it, by the crawl's clock): set when its row is
	// inserted, never changed after, the earlier of the two when records
	// merge. Zero for a post held before it was recorded and never fetched.
	FirstSeen time.Time
	Meta
	// DuplicateOf is the earlier post whose text this one's is, exactly or
	// nearly (0: none); DuplicateURL is its URL where the read gives it
	// (ExportPosts).
	DuplicateOf  int64
	DuplicateURL string
	// Updated is when the record (what export gives of it) last changed.
	Updated time.Time
}

// Meta is what a page or a feed states about a post beyond its title and
// dates; "" (or no tag) where it states nothing.
type Meta struct {
	Author      string
	Language    string // ISO 639-1
	Description string
	SiteName    string
	Tags        []string
	License     string // a URL
	Image       string // a URL
}

// NewPost is a post as a feed or a sitemap names it.
type NewPost struct {
	URL       string
	SourceID  int64
	Title     string
	Published time.Time
	Lastmod   time.Time // the feed's updated date or the sitemap's lastmod
	Text      string    // non-empty: the full post from the feed, no page fetch owed
	Seen      time.Time // when the crawl read it (its clock): the FirstSeen of a new URL
	// Meta is what the feed says of the post: stored with a full text
	// (Text), which is the feed's record of the post.
	Meta
}

// AddResult counts what AddPosts did.
type AddResult struct {
	Added    int   // new URLs
	Modified int   // known URLs whose Lastmod advanced: a conditional re-fetch is owed
	New      []int // the indexes, in the posts given, of the new URLs
}

// PageResult is the outcome of one page fetch, stored in one step.
type PageResult struct {
	PostID       int64
	State        string
	Title        string // "" keeps the stored title
	Published    time.Time
	Text         string
	Markdown     string // the text's Markdown form (extract.Page.Markdown), stored with it; a removed post keeps its own
	TextFrom     string
	ETag         string
	LastModified string
	Citations    []string
	Fetched      time.Time
	Keep         bool // a 304: keep text and validators, only clear Due
	// Retry, when its At is set, is a fetch that failed with a fault that
	// says "try later": the post stays owed (Due), in the state it was,
	// until Retry.At; nothing else of the result is stored.
	Retry Retry
	Error string // why a fetch that ended the post in PostError failed
	// Canonical is the URL the page names as its own (rel="canonical", or
	// where a permanent redirect led) when it is another URL of the same
	// site: the post is recorded under it, merged into the record that
	// has it if one does, and its old URL kept as an alias. Elsewhere is a
	// canonical URL on another site: recorded, not followed.
	Canonical string
	Elsewhere string
	// Meta is what the page states about the post, stored with its text
	// (an indexed page); Modified, its modification date, is the post's
	// Lastmod when it has none.
	Meta
	Modified time.Time
}

// SitemapURL is one url entry of a sitemap read.
type SitemapURL struct {
	Loc     string
	Lastmod time.Time
}

// Diff is what a sitemap read changed.
type Diff struct {
	New, Modified, Removed, Returned int
}
