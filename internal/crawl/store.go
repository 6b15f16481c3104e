package crawl

import (
	"context"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/urlkey"
)

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

	// AddSource stores a source unless one with the same identity
	// (sourcelist.Identity: any spelling of its homepage) is stored; it
	// returns the stored one and whether it is new.
	AddSource(ctx context.Context, url string, now time.Time) (store.Source, bool, error)
	// RehomeSource records that source id, added by a feed's URL, is the
	// blog at home (the feed's channel link): it takes home as its URL, or
	// is merged into the source that has it. It returns the blog's source.
	RehomeSource(ctx context.Context, id int64, home string) (store.Source, error)
	// MergeSource folds source from into source into (the same blog):
	// feeds, sitemaps, posts and subscriptions move, from goes.
	MergeSource(ctx context.Context, from, into int64) error
	Source(ctx context.Context, id int64) (store.Source, error)
	EachSource(ctx context.Context, fn func(store.Source) error) error
	// SourcesToDiscover lists sources never discovered and not postponed
	// past now.
	SourcesToDiscover(ctx context.Context, now time.Time, limit int) ([]store.Source, error)
	MarkDiscovered(ctx context.Context, sourceID int64, now time.Time) error
	// PostponeDiscovery keeps a source out of SourcesToDiscover until
	// `until`: its robots.txt or homepage could not be read, and a source
	// is not judged feedless on a failure.
	// r.Attempts and r.Error record why.
	PostponeDiscovery(ctx context.Context, sourceID int64, r store.Retry) error
	// SourcesForSitemaps are discovered sources whose sitemaps were never
	// looked for and not postponed past now; truncated keeps only those
	// whose feed cannot reach the archive: no active feed, or every active
	// feed's catalogue walk done (all a feed can reach is then read).
	SourcesForSitemaps(ctx context.Context, truncated bool, now time.Time, limit int) ([]store.Source, error)
	MarkSitemapsChecked(ctx context.Context, sourceID int64, now time.Time) error
	PostponeSitemaps(ctx context.Context, sourceID int64, r store.Retry) error

	// Robots and PutRobots keep the fetcher's robots.txt cache (see
	// RobotsCache), so that a restarted crawler does not ask every origin
	// again. Robots returns ErrNotFound for an origin never stored.
	Robots(ctx context.Context, origin string) (store.RobotsRecord, error)
	PutRobots(ctx context.Context, r store.RobotsRecord) error

	PutOrigin(ctx context.Context, o model.Origin) error
	Origin(ctx context.Context, origin string) (model.Origin, error)

	// AddFeed stores a feed unless its URL is known; it returns the stored one.
	AddFeed(ctx context.Context, f store.Feed) (store.Feed, error)
	UpdateFeed(ctx context.Context, f store.Feed) error
	SourceFeeds(ctx context.Context, sourceID int64) ([]store.Feed, error)
	// FeedsDue lists feeds to read: active feeds whose NextDue is not after
	// now, errored ones last tried before errorBefore, disallowed ones last
	// tried before disallowedBefore; the longest overdue first.
	FeedsDue(ctx context.Context, now, errorBefore, disallowedBefore time.Time, limit int) ([]store.Feed, error)
	// FeedHistories lists the History of every active feed, for the
	// schedule's calibration.
	FeedHistories(ctx context.Context) ([]string, error)
	// CataloguesDue lists active feeds whose catalogue walk is not done
	// (and not waiting for a retry past now).
	CataloguesDue(ctx context.Context, now time.Time, limit int) ([]store.Feed, error)

	AddSitemap(ctx context.Context, s store.Sitemap) (store.Sitemap, error)
	UpdateSitemap(ctx context.Context, s store.Sitemap) error
	SourceSitemaps(ctx context.Context, sourceID int64) ([]store.Sitemap, error)
	ChildSitemaps(ctx context.Context, parentID int64) ([]store.Sitemap, error)
	// SitemapsDue lists top-level sitemaps last read before `before` (and
	// not waiting for a retry past now), never one in state SitemapSkipped;
	// truncated keeps those of truncated sources.
	SitemapsDue(ctx context.Context, now, before time.Time, truncated bool, limit int) ([]store.Sitemap, error)
	// IngestSitemap stores one whole or partial read of a urlset: new URLs
	// become pending posts, advanced lastmods make a re-fetch due, and
	// (when whole) URLs the sitemap no longer lists are marked removed.
	// A read of at most store.SitemapChunk entries is one transaction; a
	// longer one is stored a chunk to a transaction, removals last. now is
	// the read's time: the FirstSeen of the posts it adds.
	IngestSitemap(ctx context.Context, sm store.Sitemap, now time.Time, urls []store.SitemapURL, whole bool) (store.Diff, error)
	// SitemapIngest is IngestSitemap for a read whose entries are handed
	// over as the parser finds them (store.SitemapIngest: Add, then
	// Finish), so that they are never all held.
	SitemapIngest(sm store.Sitemap, now time.Time) *store.SitemapIngest

	// AddPosts inserts the posts whose URL is new (first seen at their
	// Seen), in one transaction; a known URL inserts nothing, but an
	// advanced Lastmod makes it due.
	AddPosts(ctx context.Context, posts []store.NewPost) (store.AddResult, error)
	// FeedRead stores what one read of a feed page found and the feed's
	// new standing in one transaction, so that a crash never records the
	// posts without the progress or the progress without the posts: update
	// gets what AddPosts would return and returns the feed to store.
	FeedRead(ctx context.Context, posts []store.NewPost, update func(store.AddResult) store.Feed) (store.AddResult, error)
	Post(ctx context.Context, url string) (store.Post, error)
	// PostsDue lists posts owed a page fetch (and not waiting for a retry
	// past now), oldest first: of one source, or of any when sourceID is 0.
	PostsDue(ctx context.Context, sourceID int64, now time.Time, limit int) ([]store.Post, error)
	SavePage(ctx context.Context, r store.PageResult) error
	EachPost(ctx context.Context, fn func(store.Post) error) error

	// OptedOut reports whether the owner of site (a registrable domain, as
	// model.Site has it) opted the whole site out: nothing may be fetched
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
	DueSites(ctx context.Context, q store.SiteQuery, limit int) ([]store.DueSite, error)
	// DueSitesHeld counts sites with work due that other live workers
	// have checked out (and not finished in q.Round).
	DueSitesHeld(ctx context.Context, q store.SiteQuery) (int, error)
	// CountDueSites counts the sites with work due, whoever holds them.
	CountDueSites(ctx context.Context, q store.SiteQuery) (int, error)
	// WaitingSites lists the sites with due work left out because their
	// next permitted request is at or after q.WaitBefore, soonest first.
	WaitingSites(ctx context.Context, q store.SiteQuery, limit int) ([]store.WaitingSite, error)
	// CheckOutSites checks out to this worker those of sites that are
	// free (not checked out by another live worker, not finished in
	// round) and returns them; a checkout lasts its lifetime (SetCheckouts)
	// and is renewed while the worker lives.
	CheckOutSites(ctx context.Context, round string, sites []string) ([]string, error)
	// CheckInSite gives a checked-out site back: finished in round, or,
	// with round "", unfinished (any worker may take it up at once).
	CheckInSite(ctx context.Context, site, round string) error
	// SiteSources lists the site's sources that are not paused, by ID,
	// with the discovery steps due for each at now.
	SiteSources(ctx context.Context, site string, now time.Time) ([]store.SourceWork, error)
	// SourceWork reads one unpaused source with its discovery steps due.
	SourceWork(ctx context.Context, id int64, now time.Time) (store.SourceWork, error)
	// SourcePollsDue lists a source's feeds due for a read by their standing.
	SourcePollsDue(ctx context.Context, sourceID int64, now, errorBefore, disallowedBefore time.Time) ([]store.Feed, error)
	// PollsDue is FeedsDue without the feeds never tried.
	PollsDue(ctx context.Context, now, errorBefore, disallowedBefore time.Time, limit int) ([]store.Feed, error)
	// FeedsToRead lists and checks out a source's active feeds never tried, and
	// those whose last read failed with a fault that says "try later" once
	// their retry is due at now.
	FeedsToRead(ctx context.Context, sourceID int64, now time.Time) ([]store.Feed, error)
	// SourceCataloguesDue is CataloguesDue for one source.
	SourceCataloguesDue(ctx context.Context, sourceID int64, now time.Time) ([]store.Feed, error)
	// SiteRetryAt is the soonest retry after now that the site's items wait
	// for (a page, a feed, a catalogue page, a sitemap, a discovery), and
	// false when none waits.
	SiteRetryAt(ctx context.Context, site string, now time.Time) (time.Time, bool, error)
	// RetriesWaiting is, over every site, how many sources have items
	// waiting for a retry after now, the soonest and its last failure: what
	// a round that found nothing due says of why.
	RetriesWaiting(ctx context.Context, now time.Time) (store.RetriesWaiting, error)
	// SourceSitemapsDue is SitemapsDue for one source (not truncated), with
	// its index children whose retry is due.
	SourceSitemapsDue(ctx context.Context, sourceID int64, now, before time.Time) ([]store.Sitemap, error)

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
