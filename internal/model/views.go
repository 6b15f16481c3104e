package model

import "time"

// SitesQuery selects a page of sites.
type SitesQuery struct {
	After string // the Next of the previous page; "" for the first
	Limit int
	State string // one of SourceStates, or "" for every site
}

// SitePage is one page of Sites.
type SitePage struct {
	Sites []SiteSummary `json:"sites"`
	Next  string        `json:"next,omitempty"`
	Total int           `json:"total"`
}

// SiteSummary is one row of the sources list.
type SiteSummary struct {
	Site    string `json:"site"`
	Title   string `json:"title,omitempty"` // the first source's Title that is not empty
	Sources int    `json:"sources"`
	// Posts counts every post held, whatever its state; Indexed those in
	// state "indexed".
	Posts   int `json:"posts"`
	Indexed int `json:"indexed"`
	// States lists the distinct SourceStates of the site's sources, in the
	// order of SourceStates.
	States []string `json:"states"`
	// LastRead is the newest LastRead of any feed or sitemap of the site.
	LastRead time.Time `json:"last_read,omitzero"`
}

// SiteDetail is everything public about one site.
type SiteDetail struct {
	Site     string         `json:"site"`
	OptedOut bool           `json:"opted_out"` // PauseSite was called and not undone
	Sources  []SourceDetail `json:"sources"`
	// Posts counts the site's posts by post state (the store's states:
	// indexed, pending, noindex, removed, disallowed, refused, error, shell,
	// skipped), states with no post omitted, ordered by that list.
	Posts []StateCount `json:"posts"`
	// Recent are the site's newest posts by published date (undated last,
	// then by URL), at most RecentPosts of them, every state but removed.
	Recent    []PostMeta `json:"recent"`
	Citations Citations  `json:"citations"`
	Requests  Requests   `json:"requests"`
	Refused   bool       `json:"refused"` // on the 403 refusal list
	Robots    []Origin   `json:"robots"`  // per origin (scheme://host:port) of the site, ascending
}

// RecentPosts bounds SiteDetail.Recent.
const RecentPosts = 50

// RequestDays is how many days of the request log SiteDetail.Requests.Days covers.
const RequestDays = 30

// SourceDetail is one source (a homepage) of a site.
type SourceDetail struct {
	ID       int64     `json:"id"`
	URL      string    `json:"url"`
	Title    string    `json:"title,omitempty"` // the first feed's title, if any
	Added    time.Time `json:"added"`
	State    string    `json:"state"` // one of SourceStates
	Paused   bool      `json:"paused"`
	PausedBy string    `json:"paused_by,omitempty"` // "opt-out form" or "claim"
	PausedAt time.Time `json:"paused_at,omitzero"`
	// Error is why the source's last discovery failed, as the public site
	// may show it (store.PublicSourceError); "" when it did not.
	Error    string          `json:"error,omitempty"`
	Feeds    []FeedDetail    `json:"feeds"`    // ascending by URL
	Sitemaps []SitemapDetail `json:"sitemaps"` // ascending by URL
}

// FeedDetail is a feed's public standing, as the public site and the
// export show it: a view of the store's feed row (store.Feed), not the row.
type FeedDetail struct {
	URL       string    `json:"url"`
	Title     string    `json:"title,omitempty"`
	State     string    `json:"state"`     // active | disallowed | error
	Catalogue string    `json:"catalogue"` // none | pending | done | interrupted
	Pages     int       `json:"catalogue_pages"`
	LastRead  time.Time `json:"last_read,omitzero"` // last answer (200 or 304)
	Checked   time.Time `json:"checked,omitzero"`   // last attempt
}

// SitemapDetail is a sitemap's public standing, as the public site shows
// it: a view of the store's sitemap row (store.Sitemap), not the row.
type SitemapDetail struct {
	URL      string    `json:"url"`
	Via      string    `json:"via"`   // robots | well-known | index (a child of another sitemap)
	State    string    `json:"state"` // active | error
	LastRead time.Time `json:"last_read,omitzero"`
	URLs     int       `json:"urls"` // posts this sitemap named at its last read
	// Note is what its last read found though it is active: a cut at the
	// protocol's limit, a body that broke off; "" for a whole read.
	Note string `json:"note,omitempty"`
}

// Origin is the robots.txt standing of one origin.
type Origin struct {
	Origin  string    `json:"origin"`
	Status  int       `json:"status"` // HTTP status of the last robots.txt read, 0 when none came
	State   string    `json:"state"`  // robots.State: parsed, refused, no-file, unreachable, stale-copy, abandoned
	Checked time.Time `json:"checked,omitzero"`
	// Blocked: the file obeyed (State parsed or stale-copy) disallows the
	// crawler's product token "/", the whole origin. The crawler sets it
	// from its robots matcher; the store keeps it for the source state
	// (StateBlocked), which is where the public site shows it.
	Blocked bool `json:"-"`
}

// PostMeta is what is public about a post: never its text.
type PostMeta struct {
	URL       string    `json:"url"`
	Title     string    `json:"title"`
	Published time.Time `json:"published,omitzero"`
	Lastmod   time.Time `json:"lastmod,omitzero"`
	State     string    `json:"state"`
	Citations int       `json:"citations"` // links out recorded for this post
}

// Citations counts links between this site and others. A citation is one
// (post, linked URL) pair recorded from a post's body; links to the post's
// own site are not citations and are not counted.
type Citations struct {
	Out int `json:"out"` // links from this site's posts to other sites
	In  int `json:"in"`  // links from other sites' posts to URLs of this site
	// TopOut and TopIn are the most-cited and most-citing sites, at most
	// TopCited each, by count descending then site ascending.
	TopOut []SiteCount `json:"top_out"`
	TopIn  []SiteCount `json:"top_in"`
}

// TopCited bounds Citations.TopOut and TopIn.
const TopCited = 10

// SiteCount is a site and a count.
type SiteCount struct {
	Site  string `json:"site"`
	Count int    `json:"count"`
}

// Requests summarises what the crawler asked of one site.
type Requests struct {
	// Total counts requests over the whole log: records where a connection
	// was made (every outcome but the declined ones, Outcome.Declined;
	// each redirect hop is one request). NotModified counts those answered
	// 304; Conditional those that sent If-None-Match or If-Modified-Since.
	Total       int `json:"total"`
	Conditional int `json:"conditional"`
	NotModified int `json:"not_modified"`
	// Withheld counts the declined records: robots.txt, the refusal list,
	// the owner's opt-out or the site's pace stopped the request before any
	// connection. What we did not ask.
	Withheld  int            `json:"withheld"`
	First     time.Time      `json:"first,omitzero"`
	Last      time.Time      `json:"last,omitzero"`
	ByPurpose []PurposeCount `json:"by_purpose"` // robots, feed, page, sitemap, catalogue; zero counts omitted
	// Days covers the RequestDays days ending with the day of now, as
	// RequestsPerDay would for this site alone (days without records omitted).
	Days []RequestDay `json:"days"`
}

// PurposeCount counts requests of one purpose (as Requests.Total counts).
type PurposeCount struct {
	Purpose string `json:"purpose"`
	Count   int    `json:"count"`
}

// RequestDay is one UTC day of the request log.
type RequestDay struct {
	Day         time.Time `json:"day"`      // 00:00 UTC
	Requests    int       `json:"requests"` // as Requests.Total counts
	Conditional int       `json:"conditional"`
	NotModified int       `json:"not_modified"`
	Errors      int       `json:"errors"` // outcome error or status (no answer, or a 4xx/5xx)
	Bytes       int64     `json:"bytes"`
}

// MonthCount is a count for one UTC month.
type MonthCount struct {
	Month time.Time `json:"month"` // the 1st, 00:00 UTC
	Count int       `json:"count"`
	// Undated is how many of Count were counted by another date than the
	// one the count is of (for posts: by the date first seen, having no
	// published date of their own).
	Undated int `json:"undated"`
}

// StateCount is a count for one state.
type StateCount struct {
	State string `json:"state"`
	Count int    `json:"count"`
}

// PauseResult says what PauseSite did.
type PauseResult struct {
	Site          string `json:"site"`
	Paused        int    `json:"paused"`         // sources paused by this call
	AlreadyPaused int    `json:"already_paused"` // sources that were paused before it
}

// Claim is a site owner's request to manage a site's sources.
type Claim struct {
	// ID is hex SHA-256 of the claim page's secret: the store never holds
	// the secret itself, so a leaked database does not open claim pages.
	ID       string
	Site     string
	Token    string // the proof the owner publishes (DNS TXT or well-known file)
	Created  time.Time
	Expires  time.Time // an unverified claim cannot be verified after this
	Verified time.Time // zero until proven
	Method   string    // "dns" or "file" once verified
}

// Coverage is the whole gap report.
type Coverage struct {
	Sites   int        `json:"sites"`
	Sources int        `json:"sources"`
	Posts   int        `json:"posts"`   // every post held, whatever its state
	Indexed int        `json:"indexed"` // posts in state indexed
	Gaps    []GapCount `json:"gaps"`
	// Errors counts the last failure reasons of the feeds, sitemaps and
	// posts that failed (state error, or waiting for a retry), at most
	// TopErrorReasons of them, by total descending then reason ascending.
	Errors []ErrorReason `json:"errors"`
}

// ErrorReason is how many feeds, sitemaps and posts carry one reason as
// their last failure. Reason is one of the crawler's short stable reasons
// ("status 503", "timeout", "DNS failure", "not a feed" …; see
// store.PublicReason), or ErrorReasonOther for any text that is not: a
// stored error may hold internal details, which are never shown.
type ErrorReason struct {
	Reason   string `json:"reason"`
	Feeds    int    `json:"feeds"`
	Sitemaps int    `json:"sitemaps"`
	Posts    int    `json:"posts"`
}

// Total is the items that carry the reason.
func (e ErrorReason) Total() int { return e.Feeds + e.Sitemaps + e.Posts }

// TopErrorReasons bounds Coverage.Errors.
const TopErrorReasons = 20

// ErrorReasonOther stands for every stored failure text that is not a
// known reason.
const ErrorReasonOther = "other"

// GapCount is how much of one gap there is, in the unit its reason names.
type GapCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Gap reasons. Each counts something precise; the unit is in the name of
// the table row on the coverage page (see gaps.go).
const (
	// GapDisallowed: sources with at least one feed in state disallowed
	// (robots.txt forbids reading it). Counted in sources.
	GapDisallowed = "disallowed"
	// GapDisallowedPosts: posts in state disallowed.
	GapDisallowedPosts = "disallowed-posts"
	// GapRefused: sites on the 403 refusal list.
	GapRefused = "refused"
	// GapRobotsUnreachable: origins whose last robots.txt read was
	// unreachable (state unreachable or stale-copy): crawling paused there.
	GapRobotsUnreachable = "robots-unreachable"
	// GapNoFeedNoSitemap: discovered sources with no feed (in any state)
	// and no sitemap: nothing is fetched from them.
	GapNoFeedNoSitemap = "no-feed-no-sitemap"
	// GapShell: posts in state shell (rendered only in a browser).
	GapShell = "shell"
	// GapNoindex: posts in state noindex.
	GapNoindex = "noindex"
	// GapErrors: posts in state error plus feeds and sitemaps in state
	// error (each counted once).
	GapErrors = "errors"
	// GapNever304: sites with at least 10 conditional requests in the log
	// and not one answered 304: their validators never work for us.
	GapNever304 = "never-304"
	// GapPaused: sources paused by their owner (opt-out or claim).
	GapPaused = "paused"
)

// GapReasons lists every reason in the order of the coverage page.
var GapReasons = []string{
	GapDisallowed, GapDisallowedPosts, GapRefused, GapRobotsUnreachable, GapNoFeedNoSitemap,
	GapShell, GapNoindex, GapErrors, GapNever304, GapPaused,
}

// Never304Minimum is the number of conditional requests a site must have
// had before GapNever304 may count it: one unanswered request proves nothing.
const Never304Minimum = 10

// Source states, one per source. The first that applies wins, in this order:
//
//	removed      removed by the operator (sources remove): never crawled again, its posts kept
//	paused       paused by its owner (opt-out form or claim) or by the operator (sources pause)
//	blocked      the robots.txt of its homepage's origin disallows our product token the
//	             whole site ("/"): a file the site served (parsed, or a stale copy obeyed),
//	             not a status (a 401/403 on robots.txt is the refusal it is)
//	refused      its site is on the 403 refusal list
//	unreachable  the robots.txt of its homepage's origin is unreachable (unreachable or stale-copy)
//	disallowed   every feed it has is disallowed and it has no sitemap
//	no-feed      discovered, with no feed and no sitemap
//	pending      not discovered yet
//	error        every feed and sitemap it has is in state error
//	active       anything else: it is read
const (
	StateRemoved     = "removed"
	StatePaused      = "paused"
	StateBlocked     = "blocked"
	StateRefused     = "refused"
	StateUnreachable = "unreachable"
	StateDisallowed  = "disallowed"
	StateNoFeed      = "no-feed"
	StatePending     = "pending"
	StateError       = "error"
	StateActive      = "active"
)

// PausedByOperator is who paused a source the operator paused or removed
// from the command line (sources pause, sources remove), as stored in its
// pause (the owner's are "claim" and "opt-out form"): the operator may undo
// only these.
const PausedByOperator = "operator"

// SourceStates lists every source state in the order above.
var SourceStates = []string{
	StateRemoved, StatePaused, StateBlocked, StateRefused, StateUnreachable, StateDisallowed, StateNoFeed, StatePending, StateError, StateActive,
}

// PostStates is the store's list of post states, in its order.
var PostStates = []string{
	PostIndexed, PostPending, PostNoindex, PostRemoved, PostDisallowed, PostRefused, PostError, PostShell, PostSkipped,
}
