package fetch

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"corpus.blog/corpusbot/robots"
)

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
	// a POST of Request.Form, see post.go.
	PurposeWebSub Purpose = "websub"
	// PurposeIndexNow reads an IndexNow key file, at the submitting host's
	// request, to check that the submission is its owner's.
	PurposeIndexNow Purpose = "indexnow"
)

// Request is one fetch a caller wants. ETag and LastModified are the
// validators stored from the last read, exactly as Result gave them; they are
// sent back as If-None-Match and If-Modified-Since.
type Request struct {
	URL          string
	Purpose      Purpose
	ETag         string
	LastModified string
	// Form is the body of a POST (application/x-www-form-urlencoded); only
	// PurposeWebSub sends one, and only it may.
	Form url.Values
	// Stream, when set, takes the body of a GET instead of Result.Body: it
	// is called once, with the URL the body came from (after redirects) and
	// the decoded body, while the response is open and the site's lease
	// held, so it must not fetch. What it leaves unread is never
	// downloaded. What it made of the body counts only when the Outcome is
	// OutcomeFetched; any other means the body failed partway. A sitemap is
	// read this way (sitemap.Read streams), so that its 50 MB never sit in
	// memory.
	Stream func(finalURL string, body io.Reader)
}

// Outcome is how a fetch ended. The strings are stable.
type Outcome string

// The outcomes.
const (
	OutcomeFetched    Outcome = "fetched"    // 2xx, body read
	OutcomeUnchanged  Outcome = "unchanged"  // 304: nothing read, nothing to parse
	OutcomeDisallowed Outcome = "disallowed" // robots.txt says no (or is unreachable): no connection made
	OutcomeRefused    Outcome = "refused"    // the site is on the 403 refusal list: no connection made
	OutcomeOptedOut   Outcome = "opted-out"  // the site's owner opted out (the public site's form): no connection made
	OutcomeWaiting    Outcome = "waiting"    // the site's next permitted request is beyond the caller's horizon (wait.go): no connection made
	OutcomeTooLarge   Outcome = "too-large"  // the body (decoded) exceeds BODY_MAX, or a sitemap's limit
	OutcomeWrongType  Outcome = "wrong-type" // Content-Type (or the first bytes) not what the purpose takes: closed unread
	OutcomeStatus     Outcome = "status"     // the server answered with another status (4xx, 5xx, 3xx without Location)
	OutcomeError      Outcome = "error"      // no answer: DNS, connection, timeout, guard, too many redirects, a loop
	OutcomeRedirect   Outcome = "redirect"   // in a Record only: a hop whose Location was followed
)

// Result is what became of a Request.
type Result struct {
	Outcome     Outcome
	Status      int    // the final response's status; 0 when none
	FinalURL    string // where the last hop went
	Body        []byte // decoded, at most BODY_MAX (a sitemap: the package doc); nil unless OutcomeFetched without a Stream
	ContentType string // as the server sent it
	// Validators to store for the next conditional read: the ETag and
	// Last-Modified exactly as the server wrote them; with no Last-Modified,
	// the server's own Date header of the response (LastModifiedFromDate),
	// never our clock.
	ETag                 string
	LastModified         string
	LastModifiedFromDate bool
	Header               http.Header // the final response's header (X-Robots-Tag and the like)
	Redirects            []string    // each Location followed, in order
	// Moved is set when there were redirects and every one was permanent
	// (301, 308): FinalURL is where the resource lives now. A 302 or 307
	// anywhere on the way leaves it unset.
	Moved  bool
	Robots robots.State
	Err    error
	// share is Body's part of the fetcher's body budget (Options.BodyBudget).
	share *bodyShare
}

// Release gives Body's part of the fetcher's body budget back, so that
// another body may be read: call it once Body is done with (a page
// stored), and do not keep Body after. Without it, the part comes back
// when Body is garbage collected, later. Safe to call more than once, on
// any Result.
func (r Result) Release() { r.share.release() }

// DisallowedError says which rule kept a URL from being fetched.
type DisallowedError struct {
	URL   string
	State robots.State // how the origin's robots.txt stood
	Rule  string       // the deciding rule, "" when the state alone decided
}

func (e *DisallowedError) Error() string {
	if e.Rule != "" {
		return fmt.Sprintf("fetch %s: disallowed by robots.txt (%s)", e.URL, e.Rule)
	}
	return fmt.Sprintf("fetch %s: disallowed by robots.txt (%s)", e.URL, e.State)
}

// Errors a Result can carry, for errors.Is.
var (
	ErrRefused          = errors.New("site is on the 403 refusal list")
	ErrOptedOut         = errors.New("site opted out of crawling")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrRedirectLoop     = errors.New("redirect loop")
	ErrTooLarge         = errors.New("body exceeds BODY_MAX")
	ErrWrongType        = errors.New("content type not accepted")
	ErrBadURL           = errors.New("not an http(s) URL")
)

// StatusError is a final response that was neither a success nor a 304.
type StatusError struct{ Code int }

func (e *StatusError) Error() string { return fmt.Sprintf("status %d", e.Code) }

// MaxRedirects is how many redirects one fetch follows.
const MaxRedirects = 5
