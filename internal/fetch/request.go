package fetch

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// Request is one fetch a caller wants. ETag and LastModified are the
// validators stored from the last read, exactly as Result gave them; they are
// sent back as If-None-Match and If-Modified-Since.
type Request struct {
	URL          string
	Purpose      model.Purpose
	ETag         string
	LastModified string
	// Form is the body of a POST (application/x-www-form-urlencoded); only
	// model.PurposeWebSub sends one, and only it may.
	Form url.Values
	// Stream, when set, takes the body of a GET instead of Result.Body: it
	// is called once, with the URL the body came from (after redirects) and
	// the decoded body, while the response is open and the site's lease
	// held, so it must not fetch. What it leaves unread is never
	// downloaded. What it made of the body counts only when the Outcome is
	// model.OutcomeFetched; any other means the body failed partway. A sitemap is
	// read this way (sitemap.Read streams), so that its 50 MB never sit in
	// memory.
	Stream func(finalURL string, body io.Reader)
}

// Result is what became of a Request.
type Result struct {
	Outcome  model.Outcome
	Status   int    // the final response's status; 0 when none
	FinalURL string // where the last hop went
	// The requested URL's site (model.Site of its host) and origin
	// (model.OriginOf: its robots.txt's key), and FinalURL's site, as the
	// fetcher derived them for its own rules: a caller needs not parse
	// the URLs again. All "" when the requested URL did not parse.
	Site, Origin string
	FinalSite    string
	Body         []byte // decoded, at most BODY_MAX (a sitemap: the package doc); nil unless model.OutcomeFetched without a Stream
	ContentType  string // as the server sent it
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
