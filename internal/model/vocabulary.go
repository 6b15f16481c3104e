package model

import "time"

// The vocabulary the fetcher reports in: every Purpose and every Outcome,
// listed once so that whoever counts or stores records (internal/metrics,
// the store's request log) names them in the same words and can start each
// at zero. vocabulary_test.go checks the lists against the constants
// declared here.

// Purpose is why a URL is fetched; it decides the accepted content types and
// the gap, and is reported in every record.
type Purpose string

// The purposes; the strings are stable (logged, stored).
const (
	PurposeRobots    Purpose = "robots"
	PurposeFeed      Purpose = "feed"
	PurposePage      Purpose = "page"
	PurposeSitemap   Purpose = "sitemap"
	PurposeCatalogue Purpose = "catalogue"
	// PurposeClaim reads a site owner's claim file (the public site's
	// claiming), at the owner's request: it is the one request an
	// opted-out site still gets, so that its owner can prove control.
	PurposeClaim Purpose = "claim"
	// PurposeWebSub is a request to a WebSub hub (subscribe, unsubscribe):
	// a POST of the fetcher's Request.Form.
	PurposeWebSub Purpose = "websub"
	// PurposeIndexNow reads an IndexNow key file, at the submitting host's
	// request, to check that the submission is its owner's.
	PurposeIndexNow Purpose = "indexnow"
)

// Outcome is how a fetch ended. The strings are stable.
type Outcome string

// The outcomes of a fetch (fetch.Result) and of each request it made
// (RequestRecord).
const (
	OutcomeFetched    Outcome = "fetched"    // 2xx, body read
	OutcomeUnchanged  Outcome = "unchanged"  // 304: nothing read, nothing to parse
	OutcomeDisallowed Outcome = "disallowed" // robots.txt says no (or is unreachable): no connection made
	OutcomeRefused    Outcome = "refused"    // the site is on the 403 refusal list: no connection made
	OutcomeOptedOut   Outcome = "opted-out"  // the site's owner opted out (the public site's form): no connection made
	OutcomeWaiting    Outcome = "waiting"    // the site's next permitted request is beyond the caller's horizon: no connection made
	OutcomeTooLarge   Outcome = "too-large"  // the body (decoded) exceeds BODY_MAX, or a sitemap's limit
	OutcomeWrongType  Outcome = "wrong-type" // Content-Type (or the first bytes) not what the purpose takes: closed unread
	OutcomeStatus     Outcome = "status"     // the server answered with another status (4xx, 5xx, 3xx without Location)
	OutcomeError      Outcome = "error"      // no answer: DNS, connection, timeout, guard, too many redirects, a loop
	OutcomeRedirect   Outcome = "redirect"   // in a RequestRecord only: a hop whose Location was followed
)

// Purposes lists every Purpose.
func Purposes() []Purpose {
	return []Purpose{
		PurposeRobots, PurposeFeed, PurposePage, PurposeSitemap, PurposeCatalogue,
		PurposeClaim, PurposeWebSub, PurposeIndexNow,
	}
}

// Outcomes lists every Outcome, OutcomeRedirect (records only) included.
func Outcomes() []Outcome {
	return []Outcome{
		OutcomeFetched, OutcomeUnchanged, OutcomeDisallowed, OutcomeRefused, OutcomeOptedOut,
		OutcomeWaiting, OutcomeTooLarge, OutcomeWrongType, OutcomeStatus, OutcomeError, OutcomeRedirect,
	}
}

// Declined reports an outcome reached before any connection was made:
// robots.txt said no (or could not be read), the site is on the refusal
// list or opted out, or its next permitted request is beyond the horizon.
// A record with such an outcome is a request not sent.
func (o Outcome) Declined() bool {
	switch o {
	case OutcomeDisallowed, OutcomeRefused, OutcomeOptedOut, OutcomeWaiting:
		return true
	}
	return false
}

// RequestRecord describes one request the fetcher made, or one it did not
// make (disallowed, refused), for the request log, logs and metrics.
type RequestRecord struct {
	Site        string // Site of URL's host
	Origin      string // OriginOf URL: its robots.txt's key
	URL         string
	Purpose     Purpose
	Status      int
	Bytes       int64 // body bytes read, after decoding
	Start       time.Time
	Duration    time.Duration
	Conditional bool // If-None-Match or If-Modified-Since was sent
	// Waited is how long the request waited for the site's lease (its gap
	// since the last request, a Crawl-delay, a back-off) before it could
	// be sent, or declined under the lease.
	Waited  time.Duration
	Outcome Outcome
	Err     error
}
