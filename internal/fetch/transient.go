package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// Transient reports whether a result says "try later" rather than giving a
// final answer: no answer at all (a timeout, a reset, a refused connection,
// a failed DNS lookup), 408, 429 or any 5xx. A final answer is a 2xx, a
// 304, a 3xx, any other 4xx, a body too large or of the wrong type, a
// redirect loop; the crawler's own refusals (robots.txt, the refusal list,
// an opt-out, the private-address guard refusing every address) are
// decisions, not faults, and are not transient either; nor is a request
// the store could not record (ErrStoreDown): it was not sent, and the
// item waits for the store, not for a retry. A failure of our own network
// (OurNetworkFailed) is transient: it passes.
func (r Result) Transient() bool {
	switch r.Outcome {
	case model.OutcomeStatus:
		return TransientStatus(r.Status)
	case model.OutcomeError:
		return !errors.Is(r.Err, ErrTooManyRedirects) && !errors.Is(r.Err, ErrRedirectLoop) &&
			!errors.Is(r.Err, ErrBadURL) && !GuardRefused(r.Err) && !errors.Is(r.Err, ErrStoreDown)
	}
	return false
}

// TransientStatus reports whether an HTTP status says "try later": 408,
// 429 and every 5xx.
func TransientStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// RetryAfter is the wait the final response asked for with Retry-After
// (on a 429 or a 503, as RFC 9110 gives it meaning), from now; zero when
// it asked for none.
func (r Result) RetryAfter(now time.Time) time.Duration {
	if r.Header == nil || (r.Status != http.StatusTooManyRequests && r.Status != http.StatusServiceUnavailable) {
		return 0
	}
	w, _ := ParseRetryAfter(r.Header.Get("Retry-After"), now)
	return w
}

// RetrySchedule spaces the tries of an item that keeps failing with
// transient faults (RETRY_ATTEMPTS over RETRY_WINDOW): the first retry
// comes as soon as the site's back-off and Retry-After allow (a few
// seconds after, at most FirstRetry), and each later one waits a constant
// factor longer than the one before, the factor chosen so that the last
// try falls at the end of the window. With the defaults (5 tries, 72 h)
// the waits are 30 s, about 10 min, 3.5 h and 2.9 days.
type RetrySchedule struct {
	Attempts int           // tries an item gets, the first included; after the last it fails for good
	Window   time.Duration // the span the retries are spread over
}

// FirstRetry is the longest the first retry waits for its own sake; the
// site's back-off and Retry-After may ask more. A robots.txt that could
// not be read waits only the site's own wait before its first retry
// (robotsRetry).
const FirstRetry = 30 * time.Second

// Delay is the wait after the n-th failed try (n from 1) before the next;
// ok is false when n tries were all the item gets.
func (s RetrySchedule) Delay(n int) (wait time.Duration, ok bool) {
	retries := s.Attempts - 1 // waits between tries
	if n < 1 || n > retries || retries < 1 {
		return 0, false
	}
	first := min(FirstRetry, s.Window/time.Duration(retries))
	if first <= 0 {
		return 0, true
	}
	q := growth(retries, float64(s.Window)/float64(first))
	w := float64(first)
	for range n - 1 {
		w *= q
	}
	return time.Duration(w), true
}

// growth is the factor q ≥ 1 with 1 + q + … + q^(k-1) = total (the waits'
// sum in units of the first), found by bisection.
func growth(k int, total float64) float64 {
	sum := func(q float64) float64 {
		s, t := 0.0, 1.0
		for range k {
			s += t
			t *= q
		}
		return s
	}
	if k <= 1 || sum(1) >= total {
		return 1
	}
	lo, hi := 1.0, 2.0
	for sum(hi) < total {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if sum(mid) < total {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// Reason names why a fetch gave no body, in a few stable words with no
// URL in them ("status 503", "timeout", "connection reset", "DNS
// failure", "disallowed by robots.txt", …): what is stored as an item's
// last error and counted by reason on the coverage page. "" for a body
// read or a 304.
func (r Result) Reason() string {
	switch r.Outcome {
	case model.OutcomeFetched, model.OutcomeUnchanged:
		return ""
	case model.OutcomeStatus:
		return "status " + strconv.Itoa(r.Status)
	case model.OutcomeDisallowed:
		if r.Robots == robots.StateUnreachable {
			return "robots.txt unreachable"
		}
		return "disallowed by robots.txt"
	case model.OutcomeRefused:
		return "on the 403 refusal list"
	case model.OutcomeOptedOut:
		return "opted out"
	case model.OutcomeWaiting:
		return "waiting for the site's next permitted request"
	case model.OutcomeTooLarge:
		return "body too large"
	case model.OutcomeWrongType:
		return "wrong content type"
	}
	return errorReason(r.Err)
}

// errorReason names a failure that got no answer.
func errorReason(err error) string {
	var dns *net.DNSError
	var nerr net.Error
	switch {
	case err == nil:
		return "no answer"
	case errors.Is(err, ErrStoreDown):
		return "store cannot record"
	case errors.Is(err, ErrUnresolvedTarget):
		return "DNS failure" // our resolver's, for a target the proxy would have resolved
	case GuardRefused(err):
		return "private address refused"
	case errors.Is(err, ErrTooManyRedirects):
		return "too many redirects"
	case errors.Is(err, ErrRedirectLoop):
		return "redirect loop"
	case errors.Is(err, ErrBadURL):
		return "not an http(s) URL"
	case errors.As(err, &dns):
		return "DNS failure"
	case errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH):
		return "no route to host"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(err.Error(), "connection reset"):
		return "connection reset"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &nerr) && nerr.Timeout()):
		return "timeout"
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "connection closed"
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "TLS failure"
	}
	return "no answer"
}
