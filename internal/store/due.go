package store

// When each kind of item is due: one SQL condition per kind, written here
// once and composed into every query that asks — a site's due work
// (DueSites), a source's (FeedsToRead, SourceCataloguesDue,
// SourceSitemapsDue, PostsDue, SiteSources' flags) and a batch command's
// choice over every source (SourcesToDiscover, SourcesForSitemaps,
// FeedsDue, CataloguesDue, SitemapsDue). storetest's due suite asks every
// query of a kind over one population and fails if two disagree.
//
// Each takes the alias of its table in the query and the placeholders of
// the times it compares (the store's integers, ts). A retry waited for is
// part of every condition: an item whose last try failed with a fault that
// says "try later" is due again only once its retry time has come.

// sourceLive is the condition that source s is not paused (its owner
// opted out or paused it): nothing of a paused source is due.
func sourceLive(s string) string { return s + `.paused = 0` }

// itemLive is the condition that the row x of a table with a source_id
// belongs to a source that is not paused.
func itemLive(x string) string {
	return x + `.source_id NOT IN (SELECT id FROM sources WHERE paused <> 0)`
}

// discoveryDue is the condition that source s is to be discovered (its
// robots.txt, homepage and feeds looked for): never done, and not
// postponed past now by a failure.
func discoveryDue(s, now string) string {
	return `(` + s + `.discovered = 0 AND ` + s + `.discover_after <= ` + now + `)`
}

// sitemapDiscoveryDue is the condition that source s is to have its
// sitemaps looked for: discovered, never done, not postponed past now.
func sitemapDiscoveryDue(s, now string) string {
	return `(` + s + `.discovered <> 0 AND ` + s + `.sitemaps_checked = 0 AND ` + s + `.sitemaps_after <= ` + now + `)`
}

// feedToRead is the condition that feed f is to be read whatever the
// round's budget: an active feed never tried (its first read belongs to
// its source's discovery), or one whose last read failed with a fault
// that says "try later", once its retry is due.
func feedToRead(f, now string) string {
	return `(` + f + `.state = ` + sqlFeedActive + ` AND (` + f + `.checked = 0 OR ` + f + `.attempts > 0) AND ` + f + `.retry_at <= ` + now + `)`
}

// feedPollDue is the condition that feed f is due for a read by its
// standing: an active feed whose schedule's next read (next_due) has come,
// an errored one last tried before errorBefore (FEED_INTERVAL ago), a
// disallowed one last tried before disallowedBefore (DISALLOWED_RECHECK
// ago). Written as a CASE on the state so that it can repeat a UNION of
// three index ranges (FeedsDue) as one condition.
func feedPollDue(f, now, errorBefore, disallowedBefore string) string {
	return `(` + f + `.retry_at <= ` + now + ` AND CASE ` + f + `.state WHEN ` + sqlFeedActive + ` THEN ` + f + `.next_due <= ` + now +
		` WHEN ` + sqlFeedError + ` THEN ` + f + `.checked < ` + errorBefore +
		` WHEN ` + sqlFeedDisallowed + ` THEN ` + f + `.checked < ` + disallowedBefore + ` ELSE false END)`
}

// catalogueDue is the condition that feed f has a catalogue walk to start
// or resume: active, read at least once, its walk not finished.
func catalogueDue(f, now string) string {
	return `(` + f + `.state = ` + sqlFeedActive + ` AND ` + f + `.catalogue IN ` + sqlCatalogueUnfinished + ` AND ` + f + `.last_read <> 0 AND ` +
		f + `.retry_at <= ` + now + `)`
}

// sitemapDue is the condition that sitemap m is to be read: a top-level
// one last read before `before` (SITEMAP_INTERVAL ago), or any (an index's
// child too) whose last read failed and whose retry is due; never one
// recorded as skipped. An index's children otherwise come due through
// their index's read (SITEMAP_RECHECK, crawl.childDue).
func sitemapDue(m, now, before string) string {
	return `(` + sitemapRereadDue(m, now, before) + ` OR ` + sitemapRetryDue(m, now) + `)`
}

// sitemapRereadDue is sitemapDue's first half: a top-level sitemap last
// read before `before`. (The frontier reaches each half through an index
// of its own, duesites.go's dueRanges.)
func sitemapRereadDue(m, now, before string) string {
	return `(` + m + `.parent_id = 0 AND ` + m + `.last_read < ` + before + ` AND ` + m + `.retry_at <= ` + now +
		` AND ` + m + `.state <> ` + sqlSitemapSkipped + `)`
}

// sitemapRetryDue is sitemapDue's second half: any sitemap whose last read
// failed, once its retry is due.
func sitemapRetryDue(m, now string) string {
	return `(` + m + `.attempts > 0 AND ` + m + `.retry_at <= ` + now + ` AND ` + m + `.state <> ` + sqlSitemapSkipped + `)`
}

// pageDue is the condition that post p is owed a page fetch.
func pageDue(p, now string) string {
	return `(` + p + `.due = 1 AND ` + p + `.retry_at <= ` + now + `)`
}

// The complements: an item that would be due but for the retry it waits
// for after now (its last try failed with a fault that says "try later").
// A site's soonest retry (SiteRetryAt) and a round's "why nothing was due"
// (RetriesWaiting) are both asked through these.

// discoveryWaits: source s's discovery is put off past now. (The unary
// plus keeps SQLite from reading the discovered index for it: a site's
// sources are found by site.)
func discoveryWaits(s, now string) string {
	return `(+` + s + `.discovered = 0 AND ` + s + `.discover_after > ` + now + `)`
}

// sitemapDiscoveryWaits: source s's sitemap discovery is put off past now.
func sitemapDiscoveryWaits(s, now string) string {
	return `(` + s + `.discovered <> 0 AND ` + s + `.sitemaps_checked = 0 AND ` + s + `.sitemaps_after > ` + now + `)`
}

// feedWaits: active feed f (a read or a catalogue page) waits for a retry.
func feedWaits(f, now string) string {
	return `(` + f + `.state = ` + sqlFeedActive + ` AND ` + f + `.retry_at > ` + now + `)`
}

// sitemapWaits: sitemap m, one that is read, waits for a retry.
func sitemapWaits(m, now string) string {
	return `(` + m + `.state <> ` + sqlSitemapSkipped + ` AND ` + m + `.retry_at > ` + now + `)`
}

// pageWaits: post p is owed a page fetch that waits for a retry.
func pageWaits(p, now string) string {
	return `(` + p + `.due = 1 AND ` + p + `.retry_at > ` + now + `)`
}
