package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/robots"
)

// Fetch sends req through every rule of the crawler and reports what became
// of it. It never panics and always returns a Result; Err says why a fetch
// did not give a body. A Request with PurposeRobots re-reads the origin's
// robots.txt now (conditionally) and updates the cache.
func (f *Fetcher) Fetch(ctx context.Context, req Request) Result {
	u, err := parseURL(req.URL)
	if err != nil {
		shown := withoutUserinfo(req.URL)
		return Result{Outcome: OutcomeError, FinalURL: shown, Err: fmt.Errorf("fetch %s: %w", shown, err)}
	}
	first := u.String() // req.URL as it is shown: without user information
	if _, ok := accept[req.Purpose]; !ok {
		return Result{Outcome: OutcomeError, FinalURL: first, Err: fmt.Errorf("fetch %s: unknown purpose %q", first, req.Purpose)}
	}
	if req.Purpose == PurposeRobots {
		return f.fetchRobots(ctx, u)
	}
	if req.Purpose == PurposeWebSub || req.Form != nil {
		return f.post(ctx, u, req)
	}
	ctx = withStream(ctx, req.Stream)
	seen := map[string]bool{u.String(): true}
	var redirects []string
	permanent := true // every hop so far a 301 or 308
	for {
		res, next := f.hop(ctx, u, req)
		res.Redirects = redirects
		if next == nil {
			res.Moved = len(redirects) > 0 && permanent
			return res
		}
		permanent = permanent && (res.Status == http.StatusMovedPermanently || res.Status == http.StatusPermanentRedirect)
		switch {
		case len(redirects) >= MaxRedirects:
			return Result{Outcome: OutcomeError, Status: res.Status, FinalURL: u.String(), Redirects: redirects,
				Err: fmt.Errorf("fetch %s: %w (more than %d)", first, ErrTooManyRedirects, MaxRedirects)}
		case seen[next.String()]:
			return Result{Outcome: OutcomeError, Status: res.Status, FinalURL: u.String(), Redirects: redirects,
				Err: fmt.Errorf("fetch %s: %w at %s", first, ErrRedirectLoop, next)}
		case next.Scheme != "http" && next.Scheme != "https":
			return Result{Outcome: OutcomeError, Status: res.Status, FinalURL: u.String(), Redirects: redirects,
				Err: fmt.Errorf("fetch %s: redirect to %s: %w", first, next, ErrBadURL)}
		}
		seen[next.String()] = true
		redirects = append(redirects, next.String())
		u = next
	}
}

// hop checks u against robots.txt and the refusal list and, if both allow,
// sends one request. next is set when the answer is a redirect to follow.
func (f *Fetcher) hop(ctx context.Context, u *url.URL, req Request) (res Result, next *url.URL) {
	site := model.Site(u.Host)
	entry, err := f.robotsEntry(ctx, u, req.Purpose == PurposeClaim)
	if err != nil {
		outcome := OutcomeError
		if _, ok := WaitUntil(err); ok {
			outcome = OutcomeWaiting
		}
		return Result{Outcome: outcome, FinalURL: u.String(), Err: fmt.Errorf("fetch %s: %w", u, err)}, nil
	}
	rules := entry.Verdict.For(f.agent)
	if d := rules.Decide(u.RequestURI()); !d.Allowed {
		err := &DisallowedError{URL: u.String(), State: entry.Verdict.State, Rule: d.Rule()}
		f.emit(ctx, Record{Site: site, URL: u.String(), Purpose: req.Purpose, Start: f.clock.Now(), Outcome: OutcomeDisallowed, Err: err})
		return Result{Outcome: OutcomeDisallowed, FinalURL: u.String(), Robots: entry.Verdict.State, Err: err}, nil
	}
	if st := f.refusals.Get(ctx, site); !st.mayAsk(f.clock.Now(), f.s.RefusalRecheck) {
		err := fmt.Errorf("fetch %s: %w", u, ErrRefused)
		f.emit(ctx, Record{Site: site, URL: u.String(), Purpose: req.Purpose, Start: f.clock.Now(), Outcome: OutcomeRefused, Err: err})
		return Result{Outcome: OutcomeRefused, FinalURL: u.String(), Robots: entry.Verdict.State, Err: err}, nil
	}
	delay, _ := rules.CrawlDelay()
	ex := f.leased(ctx, site, u, req.Purpose, req.Purpose == PurposeClaim, delay, req.ETag, req.LastModified, nil)
	res = resultOf(u, ex, req)
	res.Robots = entry.Verdict.State
	return res, ex.location
}

// resultOf turns an exchange into what the caller sees.
func resultOf(u *url.URL, ex exchange, req Request) Result {
	res := Result{
		Outcome: ex.outcome, Status: ex.status, FinalURL: u.String(), Body: ex.body,
		ContentType: ex.contentType, Header: ex.header, Err: ex.err,
	}
	switch ex.outcome {
	case OutcomeFetched:
		res.ETag = ex.header.Get("Etag")
		res.LastModified = ex.header.Get("Last-Modified")
		if res.LastModified == "" {
			res.LastModified = ex.header.Get("Date")
			res.LastModifiedFromDate = res.LastModified != ""
		}
	case OutcomeUnchanged:
		// A 304 changes nothing but the check time: keep what is stored.
		res.ETag, res.LastModified = req.ETag, req.LastModified
	}
	return res
}

// leased runs one exchange under the site's lease and updates the site's
// back-off and refusal state before giving the lease back.
func (f *Fetcher) leased(ctx context.Context, site string, u *url.URL, p Purpose, forClaim bool, crawlDelay time.Duration, etag, lastModified string, form url.Values) exchange {
	floor := max(f.s.MinGap, crawlDelay)
	if p == PurposeCatalogue {
		floor = max(floor, f.s.CataloguePageDelay)
	}
	f.restoreWaits(ctx)
	asked := f.clock.Now()
	slot, err := f.lease.Acquire(ctx, site, floor)
	waited := f.clock.Now().Sub(asked)
	if until, ok := WaitUntil(err); ok {
		f.log.Debug("site waits beyond the horizon: left for later", "site", site, "url", u.String(), "until", until)
		f.deferred(ctx, site, until)
		err := fmt.Errorf("fetch %s: %w", u, err)
		f.emit(ctx, Record{Site: site, URL: u.String(), Purpose: p, Start: f.clock.Now(), Outcome: OutcomeWaiting, Err: err})
		return exchange{outcome: OutcomeWaiting, err: err, ours: true}
	}
	if err != nil {
		return exchange{outcome: OutcomeError, err: fmt.Errorf("fetch %s: lease %s: %w", u, site, err), ours: true}
	}
	// Asked again under the lease: of several requests queued on a site due
	// for its recheck, only the first is sent.
	if now := f.clock.Now(); p != PurposeRobots && !f.refusals.Get(ctx, site).mayAsk(now, f.s.RefusalRecheck) {
		slot.Abandon()
		err := fmt.Errorf("fetch %s: %w", u, ErrRefused)
		f.emit(ctx, Record{Site: site, URL: u.String(), Purpose: p, Start: now, Waited: waited, Outcome: OutcomeRefused, Err: err})
		return exchange{outcome: OutcomeRefused, err: err, ours: true}
	}
	if f.withheld(ctx, site, forClaim) {
		slot.Abandon()
		err := fmt.Errorf("fetch %s: %w", u, ErrOptedOut)
		f.emit(ctx, Record{Site: site, URL: u.String(), Purpose: p, Start: f.clock.Now(), Waited: waited, Outcome: OutcomeOptedOut, Err: err})
		return exchange{outcome: OutcomeOptedOut, err: err, ours: true}
	}
	underway := f.conns.begin(site)
	ex := f.exchange(withSite(ctx, site), u, p, etag, lastModified, form)
	underway()
	now := f.clock.Now()
	b := f.backoffs.get(site, now)
	if !ex.ours { // our own failure (ours.go) says nothing about the site
		b = b.update(answer{
			status: ex.status, failed: ex.failed(), header: ex.header, duration: ex.end.Sub(ex.start), end: ex.end,
		}, f.s.MinGap, f.slowAfter, f.slowFactor)
		f.backoffs.put(site, b, now)
		f.saveWait(ctx, site, b, b.next(ex.end, max(f.s.MinGap, crawlDelay)), now)
	}
	// robots.txt is not a page: its answers neither list a site nor clear it.
	if !ex.ours && p != PurposeRobots {
		if st := f.refusals.Get(ctx, site); st != st.after(ex.status, ex.end) {
			f.refusals.Put(ctx, site, st.after(ex.status, ex.end))
		}
	}
	slot.Release(ex.end, b.next(ex.end, max(f.s.MinGap, crawlDelay)))
	f.emit(ctx, Record{
		Site: site, URL: u.String(), Purpose: p, Status: ex.status, Bytes: ex.read,
		Start: ex.start, Duration: ex.end.Sub(ex.start), Conditional: ex.conditional, Waited: waited, Outcome: outcomeOf(ex), Err: ex.err,
	})
	if ex.archived != nil {
		f.archive(ctx, *ex.archived)
	}
	return ex
}

// outcomeOf names a redirect, which is not an outcome a caller sees.
func outcomeOf(ex exchange) Outcome {
	if ex.location != nil {
		return OutcomeRedirect
	}
	return ex.outcome
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

// withheld reports whether a request to site must not be sent because the
// site's owner opted out. A claim file is the exception (forClaim: the
// claim file and the robots.txt read on its way): the owner asked for that
// read, to prove control and perhaps resume the site.
func (f *Fetcher) withheld(ctx context.Context, site string, forClaim bool) bool {
	if f.optedOut == nil || forClaim {
		return false
	}
	return f.optedOut(ctx, site)
}
