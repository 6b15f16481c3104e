package web

import (
	"context"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Data is everything the public site reads and writes, declared here where
// it is used. It speaks in the site's terms (sites, sources, gaps; the
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
	// Coverage counts every known gap. See the Gap* constants for exactly
	// what each reason counts; every reason in GapReasons is present in the
	// result, in that order, with Count 0 when nothing has that gap.
	Coverage(ctx context.Context) (model.Coverage, error)

	// Sites lists sites in ascending order of the site name, filtered by
	// q.State when it is not empty (a source state: a site matches when at
	// least one of its sources is in that state). Pagination is by key: the
	// page holds the first q.Limit sites whose name is > q.After (all of
	// them from the start when After is ""); Next is the last site of the
	// page when more sites follow it, else "". Total is the number of sites
	// matching the filter, ignoring After. Limit is between 1 and 500; the
	// caller enforces that.
	Sites(ctx context.Context, q model.SitesQuery) (model.SitePage, error)

	// Site returns one site's metadata: its sources (ascending by homepage
	// URL) with their feeds and sitemaps, post counts, citations and the
	// request log summary. now bounds the request log's day buckets (the
	// RequestDays days ending with now's day). ErrNotFound when the site has
	// no source, no logged request and was never opted out.
	Site(ctx context.Context, site string, now time.Time) (model.SiteDetail, error)

	// PostsPerMonth counts posts held in state "indexed" by UTC month of
	// their published date or, for a post with none, of the date it was
	// first seen (counted in Undated too), ascending, months with no such
	// post omitted. A post with neither date (held before first-seen dates
	// were recorded, and never fetched) is in no month.
	PostsPerMonth(ctx context.Context) ([]model.MonthCount, error)

	// SourcesByState counts sources by their state, in the order of
	// model.SourceStates, every state present (Count 0 allowed).
	SourcesByState(ctx context.Context) ([]model.StateCount, error)

	// RequestsPerDay summarises the request log by UTC day for the days
	// in [from, to) (from and to are truncated to their UTC day), ascending,
	// days with no record omitted.
	RequestsPerDay(ctx context.Context, from, to time.Time) ([]model.RequestDay, error)

	// RequestSpan is the start of the request log's oldest and newest
	// records (as RequestsPerDay counts them), ok false when it has none:
	// the requests chart ends with the log's last day, not the clock's.
	RequestSpan(ctx context.Context) (from, to time.Time, ok bool, err error)

	// PauseSite opts a whole site out at once: every source of the site is
	// paused (Paused true, PausedBy = by, PausedAt = now), and the site
	// itself is recorded as opted out, so that a source of that site added
	// later starts paused and the crawler sends nothing to any host of the
	// site from the moment this returns. It succeeds for a site with no
	// source (the record keeps it out of the catalogue). Calling it again is
	// harmless: sources already paused keep their first PausedAt and count
	// in AlreadyPaused.
	PauseSite(ctx context.Context, site, by string, now time.Time) (model.PauseResult, error)

	// ResumeSite undoes PauseSite: the site-level opt-out is cleared and
	// every source of the site resumes. Used only from a verified claim.
	ResumeSite(ctx context.Context, site string) error

	// PauseSource and ResumeSource pause or resume one source by its ID.
	// ErrNotFound for an unknown ID. Resuming a source of a site that is
	// opted out as a whole does not clear the site-level record (ResumeSite
	// does): new sources of that site would still start paused.
	PauseSource(ctx context.Context, sourceID int64, by string, now time.Time) error
	ResumeSource(ctx context.Context, sourceID int64) error

	// CreateClaim stores a new claim. c.ID is unique (it is a hash of the
	// claim page's secret, chosen by the caller); an existing ID is an error.
	CreateClaim(ctx context.Context, c model.Claim) error
	// Claim returns the claim with that ID, or ErrNotFound.
	Claim(ctx context.Context, id string) (model.Claim, error)
	// MarkClaimVerified records a successful proof of control: Verified =
	// now, Method = method ("dns" or "file"). ErrNotFound for an unknown ID.
	MarkClaimVerified(ctx context.Context, id, method string, now time.Time) error
}
