package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// Fetch sends req through every rule of the crawler and reports what became
// of it. It never panics and always returns a Result; Err says why a fetch
// did not give a body. A Request with model.PurposeRobots re-reads the origin's
// robots.txt now (conditionally) and updates the cache.
func (f *Fetcher) Fetch(ctx context.Context, req Request) Result {
	u, err := parseURL(req.URL)
	if err != nil {
		shown := withoutUserinfo(req.URL)
		return Result{Outcome: model.OutcomeError, FinalURL: shown, Err: fmt.Errorf("fetch %s: %w", shown, err)}
	}
	a := newAttempt(u, req)
	res := f.fetchFrom(ctx, a)
	res.Site, res.Origin = a.site, a.origin
	return res
}

// fetchFrom is Fetch from the first attempt, a.
func (f *Fetcher) fetchFrom(ctx context.Context, a attempt) Result {
	if _, ok := accept[a.purpose]; !ok {
		return Result{Outcome: model.OutcomeError, FinalURL: a.shown, FinalSite: a.site, Err: fmt.Errorf("fetch %s: unknown purpose %q", a.shown, a.purpose)}
	}
	switch {
	case a.purpose == model.PurposeRobots:
		return f.fetchRobots(ctx, &a)
	case a.purpose == model.PurposeWebSub || a.form != nil:
		return f.post(ctx, &a)
	}
	first := a.shown // req.URL as it is shown: without user information
	seen := map[string]bool{first: true}
	var redirects []string
	permanent := true // every hop so far a 301 or 308
	for {
		ex := f.send(ctx, &a)
		res := resultOf(&a, ex)
		res.Redirects = redirects
		next := ex.location
		if next == nil {
			res.Moved = len(redirects) > 0 && permanent
			return res
		}
		permanent = permanent && (res.Status == http.StatusMovedPermanently || res.Status == http.StatusPermanentRedirect)
		switch {
		case len(redirects) >= MaxRedirects:
			return Result{Outcome: model.OutcomeError, Status: res.Status, FinalURL: a.shown, FinalSite: a.site, Redirects: redirects,
				Err: fmt.Errorf("fetch %s: %w (more than %d)", first, ErrTooManyRedirects, MaxRedirects)}
		case seen[next.String()]:
			return Result{Outcome: model.OutcomeError, Status: res.Status, FinalURL: a.shown, FinalSite: a.site, Redirects: redirects,
				Err: fmt.Errorf("fetch %s: %w at %s", first, ErrRedirectLoop, next)}
		case next.Scheme != "http" && next.Scheme != "https":
			return Result{Outcome: model.OutcomeError, Status: res.Status, FinalURL: a.shown, FinalSite: a.site, Redirects: redirects,
				Err: fmt.Errorf("fetch %s: redirect to %s: %w", first, next, ErrBadURL)}
		}
		a = a.redirected(next)
		seen[a.shown] = true
		redirects = append(redirects, a.shown)
	}
}

// resultOf turns the exchange of attempt a into what the caller sees.
func resultOf(a *attempt, ex exchange) Result {
	res := Result{
		Outcome: ex.outcome, Status: ex.status, FinalURL: a.shown, FinalSite: a.site, Body: ex.body,
		ContentType: ex.contentType, Header: ex.header, Robots: a.robots, Err: ex.err, share: ex.share,
	}
	switch ex.outcome {
	case model.OutcomeFetched:
		res.ETag = ex.header.Get("Etag")
		res.LastModified = ex.header.Get("Last-Modified")
		if res.LastModified == "" {
			res.LastModified = ex.header.Get("Date")
			res.LastModifiedFromDate = res.LastModified != ""
		}
	case model.OutcomeUnchanged:
		// A 304 changes nothing but the check time: keep what is stored.
		res.ETag, res.LastModified = a.etag, a.lastModified
	}
	return res
}

// parseURL accepts absolute http and https URLs with a host. User
// information ("user:password@") is dropped: the crawler sends no
// credentials (sources add refuses them; a URL found in a feed or a page
// may still carry some), and a URL it records, logs or returns must not
// hold a password.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// A URL that does not parse (a control character, a bad escape)
		// never will: a final answer, not a fault to retry.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL, password and all
		}
		return nil, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	u.User = nil
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, ErrBadURL
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// withoutUserinfo is raw without its user information, for a message about
// a URL parseURL refused. One that does not parse is shown as it is, unless
// it has an "@", before which may be a password.
func withoutUserinfo(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err == nil:
		u.User = nil
		return u.String()
	case strings.Contains(raw, "@"):
		return "(unparsable URL)"
	}
	return raw
}

// ttls are the robots cache lifetimes from the settings.
func (f *Fetcher) ttls() robots.TTLs {
	return robots.TTLs{Answer: f.s.RobotsTTL, Guess: f.s.RobotsGuessTTL}
}
