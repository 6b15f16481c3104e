// Package store is the crawler's memory: sources, the robots state of their
// origins, feeds, sitemaps, posts, the 403 refusal list, the request log,
// WebSub subscriptions and the public site's questions.
//
// DB is the one implementation, all its SQL written once (db.go) for both
// backends: SQLite (store/sqlite, the embedded default) and PostgreSQL
// (store/postgres, a cluster of workers on one database). It speaks in the
// crawler's terms, takes and returns time.Time, and every method that
// changes more than one row does so atomically, so that a process killed at
// any moment leaves either all of a change or none of it. Store is the
// crawler's view of it; the suites every backend runs are in storetest.
package store

import (
	"context"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/urlkey"
)

// Source is a blog, known by its homepage URL.
type Source struct {
	ID              int64
	URL             string
	Site            string // the registrable domain of URL's host (fetch.Site)
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
}

// DueSite is a source with work due and its site.
type DueSite struct {
	SourceID int64
	Site     string
}

// RobotsRecord is a fetch.RobotsEntry in storable form: the parsed files
// as robots.File.String() writes them back (parsing that text decides every
// URL the same way).
type RobotsRecord struct {
	Origin           string
	State            string
	TTL              time.Duration
	File             string // "" with HasFile false: no file to obey
	HasFile          bool
	Checked          time.Time
	Expires          time.Time
	LastFile         string // the newest 2xx copy
	HasLast          bool
	LastFetched      time.Time
	UnreachableSince time.Time
	ETag             string
	LastModified     string
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
	State        string // "active", "error", "disallowed" or SitemapSkipped
	ETag         string
	LastModified string
	LastRead     time.Time
	Lastmod      time.Time // as its parent index last stated it
	ReadLastmod  time.Time // the parent's lastmod when this child was last read
	Error        string
	Attempts     int       // reads that failed in a row with a fault that says "try later"
	RetryAt      time.Time // after such a failure, not read again before this
	// Kind is what its name says it lists (sitemap.Kind's words: posts,
	// pages, taxonomies, authors, other, unknown; "" not yet classified).
	// A sitemap of pages, taxonomies, authors or other is recorded in
	// State SitemapSkipped and never read.
	Kind string
	// The entries its last read did not queue, by the kind their shape
	// says (sitemap.WantsPage): counted, not stored as posts.
	SkippedPages, SkippedTaxonomies, SkippedAuthors, SkippedOther int
}

// Post is one article.
type Post struct {
	ID           int64
	URL          string
	SourceID     int64
	Title        string
	Published    time.Time
	Lastmod      time.Time
	State        string
	TextFrom     string
	Text         string // kept privately, never exported
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

// Store is the crawler's persistent state. Implementations are safe for
// concurrent use.
type Store interface {
	// UpdateOriginStanding sets the state, check time and blocked bit of
	// an origin PutOrigin recorded, keeping its status; none: nothing.
	UpdateOriginStanding(ctx context.Context, o model.Origin) error
	// PruneRequests deletes at most limit request-log rows that started
	// before before, oldest first, and says how many it deleted.
	PruneRequests(ctx context.Context, before time.Time, limit int) (int64, error)
	Close() error

	AddSource(ctx context.Context, url string, now time.Time) (Source, bool, error)
	Source(ctx context.Context, id int64) (Source, error)
	EachSource(ctx context.Context, fn func(Source) error) error
	// SourcesToDiscover lists sources never discovered and not postponed
	// past now.
	SourcesToDiscover(ctx context.Context, now time.Time, limit int) ([]Source, error)
	MarkDiscovered(ctx context.Context, sourceID int64, now time.Time) error
	// PostponeDiscovery keeps a source out of SourcesToDiscover until
	// `until`: its robots.txt or homepage could not be read, and a source
	// is not judged feedless on a failure.
	// r.Attempts and r.Error record why.
	PostponeDiscovery(ctx context.Context, sourceID int64, r Retry) error
	// SourcesForSitemaps are discovered sources whose sitemaps were never
	// looked for and not postponed past now; truncated keeps only those
	// whose feed cannot reach the archive: no active feed, or every active
	// feed's catalogue walk done (all a feed can reach is then read).
	SourcesForSitemaps(ctx context.Context, truncated bool, now time.Time, limit int) ([]Source, error)
	MarkSitemapsChecked(ctx context.Context, sourceID int64, now time.Time) error
	PostponeSitemaps(ctx context.Context, sourceID int64, r Retry) error

	// Robots and PutRobots keep the fetcher's robots.txt cache (see
	// RobotsCache), so that a restarted crawler does not ask every origin
	// again. Robots returns ErrNotFound for an origin never stored.
	Robots(ctx context.Context, origin string) (RobotsRecord, error)
	PutRobots(ctx context.Context, r RobotsRecord) error

	PutOrigin(ctx context.Context, o model.Origin) error
	Origin(ctx context.Context, origin string) (model.Origin, error)

	// AddFeed stores a feed unless its URL is known; it returns the stored one.
	AddFeed(ctx context.Context, f Feed) (Feed, error)
	UpdateFeed(ctx context.Context, f Feed) error
	SourceFeeds(ctx context.Context, sourceID int64) ([]Feed, error)
	// FeedsDue lists feeds to read: active feeds whose NextDue is not after
	// now, errored ones last tried before errorBefore, disallowed ones last
	// tried before disallowedBefore; the longest overdue first.
	FeedsDue(ctx context.Context, now, errorBefore, disallowedBefore time.Time, limit int) ([]Feed, error)
	// FeedHistories lists the History of every active feed, for the
	// schedule's calibration.
	FeedHistories(ctx context.Context) ([]string, error)
	// CataloguesDue lists active feeds whose catalogue walk is not done
	// (and not waiting for a retry past now).
	CataloguesDue(ctx context.Context, now time.Time, limit int) ([]Feed, error)

	AddSitemap(ctx context.Context, s Sitemap) (Sitemap, error)
	UpdateSitemap(ctx context.Context, s Sitemap) error
	SourceSitemaps(ctx context.Context, sourceID int64) ([]Sitemap, error)
	ChildSitemaps(ctx context.Context, parentID int64) ([]Sitemap, error)
	// SitemapsDue lists top-level sitemaps last read before `before` (and
	// not waiting for a retry past now), never one in state SitemapSkipped;
	// truncated keeps those of truncated sources.
	SitemapsDue(ctx context.Context, now, before time.Time, truncated bool, limit int) ([]Sitemap, error)
	// IngestSitemap stores one whole or partial read of a urlset: new URLs
	// become pending posts, advanced lastmods make a re-fetch due, and
	// (when whole) URLs the sitemap no longer lists are marked removed.
	// All of it in one transaction. now is the read's time: the FirstSeen
	// of the posts it adds.
	IngestSitemap(ctx context.Context, sm Sitemap, now time.Time, urls []SitemapURL, whole bool) (Diff, error)

	// AddPosts inserts the posts whose URL is new (first seen at their
	// Seen), in one transaction; a known URL inserts nothing, but an
	// advanced Lastmod makes it due.
	AddPosts(ctx context.Context, posts []NewPost) (AddResult, error)
	// FeedRead stores what one read of a feed page found and the feed's
	// new standing in one transaction, so that a crash never records the
	// posts without the progress or the progress without the posts: update
	// gets what AddPosts would return and returns the feed to store.
	FeedRead(ctx context.Context, posts []NewPost, update func(AddResult) Feed) (AddResult, error)
	Post(ctx context.Context, url string) (Post, error)
	// PostsDue lists posts owed a page fetch (and not waiting for a retry
	// past now), oldest first: of one source, or of any when sourceID is 0.
	PostsDue(ctx context.Context, sourceID int64, now time.Time, limit int) ([]Post, error)
	SavePage(ctx context.Context, r PageResult) error
	EachPost(ctx context.Context, fn func(Post) error) error

	// OptedOut reports whether the owner of site (a registrable domain, as
	// fetch.Site has it) opted the whole site out: nothing may be fetched
	// from it (fetch.Options.OptedOut). The sources of such a site are
	// paused, and their work is in no batch.
	OptedOut(ctx context.Context, site string) (bool, error)

	Refusal(ctx context.Context, site string) (fetch.RefusalState, error)
	PutRefusal(ctx context.Context, site string, s fetch.RefusalState) error

	// DueSites lists sources with work due (q.After excluded, in ID order)
	// whose site is neither checked out by another live worker nor
	// finished in q.Round. Due work is discovery, sitemap discovery, a feed
	// never tried, a catalogue walk not done, a sitemap to read and a page
	// owed; feeds due for a re-read are chosen apart (PollsDue).
	DueSites(ctx context.Context, q SiteQuery, limit int) ([]DueSite, error)
	// DueSitesHeld counts sites with work due that other live workers
	// have checked out (and not finished in q.Round).
	DueSitesHeld(ctx context.Context, q SiteQuery) (int, error)
	// CountDueSites counts the sites with work due, whoever holds them.
	CountDueSites(ctx context.Context, q SiteQuery) (int, error)
	// CheckOutSites checks out to this worker those of sites that are
	// free (not checked out by another live worker, not finished in
	// round) and returns them; a checkout lasts as long as the item checkouts
	// and is renewed with them.
	CheckOutSites(ctx context.Context, round string, sites []string) ([]string, error)
	// CheckInSite gives a checked-out site back: finished in round, or,
	// with round "", unfinished (any worker may take it up at once).
	CheckInSite(ctx context.Context, site, round string) error
	// SiteSources lists the site's sources that are not paused, by ID.
	SiteSources(ctx context.Context, site string) ([]Source, error)
	// CheckOutSource checks out one source (for its discovery or sitemap
	// discovery) unless another worker holds it or it is paused;
	// MarkDiscovered, PostponeDiscovery, MarkSitemapsChecked and
	// PostponeSitemaps release it.
	CheckOutSource(ctx context.Context, id int64) (Source, bool, error)
	// PollsDue is FeedsDue without the feeds never tried.
	PollsDue(ctx context.Context, now, errorBefore, disallowedBefore time.Time, limit int) ([]Feed, error)
	// FeedsToRead lists and checks out a source's active feeds never tried, and
	// those whose last read failed with a fault that says "try later" once
	// their retry is due at now.
	FeedsToRead(ctx context.Context, sourceID int64, now time.Time) ([]Feed, error)
	// SourceCataloguesDue is CataloguesDue for one source.
	SourceCataloguesDue(ctx context.Context, sourceID int64, now time.Time) ([]Feed, error)
	// SiteRetryAt is the soonest retry after now that the site's items wait
	// for (a page, a feed, a catalogue page, a sitemap, a discovery), and
	// false when none waits.
	SiteRetryAt(ctx context.Context, site string, now time.Time) (time.Time, bool, error)
	// SourceSitemapsDue is SitemapsDue for one source (not truncated), with
	// its index children whose retry is due.
	SourceSitemapsDue(ctx context.Context, sourceID int64, now, before time.Time) ([]Sitemap, error)

	// LearnSpelling records how a host spells its URLs, as like (a URL the
	// site itself gave: a permanent redirect's target, a canonical link)
	// shows it in the ways v names, and spells again the posts of the host
	// not yet fetched, merging those that turn out to be another record's.
	// It returns how many it changed.
	LearnSpelling(ctx context.Context, like string, v urlkey.Variation) (int, error)
	// MoveFeed records that feed id lives at url now (it moved for good:
	// a 301 or 308); its old URL stays as an alias, so that a page still
	// naming it finds the same record.
	MoveFeed(ctx context.Context, id int64, url string) error
	// MoveSitemap is MoveFeed for a sitemap.
	MoveSitemap(ctx context.Context, id int64, url string) error

	LogRequests(ctx context.Context, recs []fetch.Record) error
	// RequestCount counts logged requests, by purpose when purpose != "".
	RequestCount(ctx context.Context, purpose fetch.Purpose) (int, error)
}
