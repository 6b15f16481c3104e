package web

// Data is everything the public site reads and writes: the questions of
// its three kinds of page, each declared beside the page that asks it
// (OverviewData in coverage.go, DirectoryData in sources.go, OwnersData in
// claim.go). It speaks in the site's terms (sites, sources, gaps; the
// types of package model) rather than the store's rows; the SQL store's
// SiteData (SQLite or PostgreSQL) implements it. Implementations must be
// safe for concurrent use.
//
// A "site" is a registrable domain (eTLD+1, public suffix list with its
// private section, as golang.org/x/net/publicsuffix has it; the same rule as
// model.Site): lowercase, no trailing dot, no port. A source belongs to the
// site of its homepage URL's host.
//
// No method ever returns a post's stored text: the types below have no field
// for it, and an implementation must not smuggle it into another field
// (titles are titles as the feed or page gave them, not excerpts).
//
// Times are UTC. "Day" and "month" buckets are UTC calendar days and months.
type Data interface {
	OverviewData
	DirectoryData
	OwnersData
}
