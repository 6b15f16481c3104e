package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// errRobotsAbandoned is a robots.txt read given up because the caller's
// context ended; nothing is cached and nothing else is fetched.
var errRobotsAbandoned = errors.New("robots.txt not read")

// Robots returns the robots.txt entry in force for the origin of rawURL,
// asking the origin first if its entry is missing or expired. Callers use it
// for Sitemap: lines; Fetch consults it on its own.
func (f *Fetcher) Robots(ctx context.Context, rawURL string) (RobotsEntry, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return RobotsEntry{}, fmt.Errorf("robots %s: %w", withoutUserinfo(rawURL), err)
	}
	a := newAttempt(u, Request{Purpose: model.PurposeRobots})
	return f.robotsEntry(ctx, &a)
}

// robotsEntry is the fresh entry for the origin of attempt a; concurrent
// callers meeting the same stale origin share one read.
func (f *Fetcher) robotsEntry(ctx context.Context, a *attempt) (RobotsEntry, error) {
	origin := a.origin
	e, ok := f.robots.Get(ctx, origin)
	if ok && f.clock.Now().Before(e.Expires) {
		return e, nil
	}
	// A site on the 403 refusal list is asked one request per
	// REFUSAL_RECHECK, and that one is not spent on robots.txt (whose answer
	// could not clear the list): the copy last read stays in force until a
	// page is served again.
	if ok && f.refusals.Get(ctx, a.site).Refused {
		return e, nil
	}
	// A read its lease would decline (check) is not begun: an opted-out
	// site costs the caller no wait for it.
	if err := f.withheld(ctx, a); err != nil {
		return RobotsEntry{}, fmt.Errorf("robots.txt of %s: %w", origin, err)
	}
	asked := f.clock.Now()
	ours := f.robotsOnce.do(ctx, origin, func() error {
		if e, ok := f.robots.Get(ctx, origin); ok && f.clock.Now().Before(e.Expires) {
			return nil // another caller refreshed it between our look and the flight
		}
		return f.refreshRobots(ctx, a).ours
	})
	// An entry read since we asked is obeyed even if a long wait on the
	// lease has already aged it past its TTL.
	if e, ok := f.robots.Get(ctx, origin); ok && (f.clock.Now().Before(e.Expires) || !e.Checked.Before(asked)) {
		return e, nil
	}
	if err := ctx.Err(); err != nil {
		return RobotsEntry{}, fmt.Errorf("%w: %w", errRobotsAbandoned, err)
	}
	if ours != nil {
		// The guard refused the origin, our network reached nothing, the
		// store could not record the read (ErrStoreDown), or the site may
		// not be asked within the caller's horizon (WaitError): nothing
		// was stored, and the request fails with that error
		// (GuardRefused: not transient; OurNetworkFailed: transient).
		return RobotsEntry{}, fmt.Errorf("robots.txt of %s: %w", origin, ours)
	}
	// The read ended without an entry to obey (the reader's context ended):
	// nothing is fetched on a guess.
	return RobotsEntry{}, fmt.Errorf("%s: %w", origin, errRobotsAbandoned)
}

// robotsRead is what one read of robots.txt gave the caller that asked
// for it (Fetch with model.PurposeRobots), and ours, the failure of our own
// (ours.go) that left nothing stored: the error the requests that waited
// for the read fail with.
type robotsRead struct {
	Result
	ours error
}

// fetchRobots is Fetch for model.PurposeRobots (a, at any URL of the origin): a
// read now, whatever the cache.
func (f *Fetcher) fetchRobots(ctx context.Context, a *attempt) Result {
	var res Result
	f.robotsOnce.do(ctx, a.origin, func() error {
		r := f.refreshRobots(ctx, a)
		res = r.Result
		return r.ours
	})
	if res.Outcome == "" {
		e, err := f.robotsEntry(ctx, a)
		if err != nil {
			return Result{Outcome: model.OutcomeError, FinalURL: a.shown, FinalSite: a.site, Err: err}
		}
		return Result{Outcome: model.OutcomeUnchanged, FinalURL: robotsURL(a.url).String(), FinalSite: a.site, Robots: e.Verdict.State,
			ETag: e.ETag, LastModified: e.LastModified}
	}
	return res
}

func robotsURL(u *url.URL) *url.URL {
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
}

// refreshRobots reads the robots.txt of the origin of attempt a, following
// redirects up to robots.MaxRedirects, decides what to obey with
// robots.Decide and caches it. Every hop is an attempt of its own, under
// the lease of the site it lands on. A failure of our own (the caller's
// context, the private-address guard, our network: ours.go) is not the
// site's answer: nothing is cached for it.
func (f *Fetcher) refreshRobots(ctx context.Context, a *attempt) robotsRead {
	prev, _ := f.robots.Get(ctx, a.origin)
	cur := a.robotsTxt()
	seen := map[string]bool{cur.shown: true}
	var redirects []string
	for hops := 0; ; hops++ {
		// The copy's validators are for the file at the first URL.
		cur.etag, cur.lastModified = "", ""
		if hops == 0 && prev.Last != nil {
			cur.etag, cur.lastModified = prev.ETag, prev.LastModified
		}
		ex := f.send(ctx, &cur)
		if ex.ours {
			r := robotsRead{Result: Result{Outcome: model.OutcomeError, FinalURL: cur.shown, FinalSite: cur.site, Err: ex.err}}
			if _, waiting := WaitUntil(ex.err); waiting || GuardRefused(ex.err) || OurNetworkFailed(ex.err) || errors.Is(ex.err, ErrStoreDown) {
				r.ours = ex.err // not the reader's context: the waiters fail with it too
			}
			return r
		}
		now := f.clock.Now()
		if ex.outcome == model.OutcomeUnchanged && prev.Last != nil {
			// The copy we hold is still the file: an answer, as good as a 200.
			e := RobotsEntry{
				Verdict: robots.Verdict{State: robots.StateParsed, File: prev.Last.File, TTL: f.s.RobotsTTL},
				Checked: now, Expires: now.Add(f.s.RobotsTTL), Last: &robots.Copy{File: prev.Last.File, FetchedAt: now},
				ETag: prev.ETag, LastModified: prev.LastModified,
			}
			f.keepRobots(ctx, a.origin, e)
			res := resultOf(&cur, ex)
			res.Redirects, res.Robots = redirects, robots.StateParsed
			return robotsRead{Result: res}
		}
		in := robots.Fetch{Status: ex.status, Body: ex.body, Redirects: hops}
		if ex.outcome == model.OutcomeError {
			in.Status, in.Err = 0, ex.err
		}
		if ex.status >= 300 && ex.status < 400 && ex.location == nil {
			in.Redirects = robots.MaxRedirects // a redirect to nowhere: as good as too many
		}
		if ex.location != nil && (seen[ex.location.String()] || (ex.location.Scheme != "http" && ex.location.Scheme != "https")) {
			in.Redirects = robots.MaxRedirects // a loop never ends: take it as too many
		}
		v := robots.Decide(in, prev.Last, prev.UnreachableSince, now, f.ttls())
		if v.State == robots.StateRedirect {
			cur = cur.redirected(ex.location)
			seen[cur.shown] = true
			redirects = append(redirects, cur.shown)
			continue
		}
		e := RobotsEntry{Verdict: v, Checked: now, Expires: now.Add(v.TTL), Last: prev.Last, ETag: prev.ETag, LastModified: prev.LastModified}
		switch v.State {
		case robots.StateParsed:
			e.Last = &robots.Copy{File: v.File, FetchedAt: now}
			r := resultOf(&cur, ex)
			e.ETag, e.LastModified = r.ETag, r.LastModified
		case robots.StateUnreachable, robots.StateStaleCopy, robots.StateAbandoned:
			e.UnreachableSince = prev.UnreachableSince
			if e.UnreachableSince.IsZero() {
				e.UnreachableSince = now
			}
			// A failure that says "try later" is tried again later, on the
			// retry schedule, not left for the whole guess TTL.
			retryAfter := time.Duration(0)
			if ex.status == http.StatusTooManyRequests || ex.status == http.StatusServiceUnavailable {
				retryAfter, _ = ParseRetryAfter(ex.header.Get("Retry-After"), now)
			}
			// The site's own wait after this answer: its back-off, widened
			// by the failure, and its Retry-After.
			siteWait := f.backoffs.get(cur.site, now).next(ex.end, f.gap(&cur)).Sub(now)
			e.Expires = now.Add(f.robotsRetry(e.UnreachableSince, now, siteWait, retryAfter, v.TTL))
		}
		f.keepRobots(ctx, a.origin, e)
		res := resultOf(&cur, ex)
		res.Redirects, res.Robots = redirects, v.State
		return robotsRead{Result: res}
	}
}

// robotsRetry is how long an origin whose robots.txt could not be read
// waits before it is asked again: the retry schedule's next wait, counted
// from the first failure of the run (so that it grows as the failures go
// on), at least what Retry-After asked, at most ttl (ROBOTS_GUESS_TTL),
// which paces it once the schedule is spent.
//
// The first retry comes as soon as the site's own wait after the failure
// (siteWait: its back-off and Retry-After) allows, not the schedule's first
// wait: the file gates every other request to the site, none of which is
// sent meanwhile, so the site has nothing else of ours to bear, and a
// first pass is not held open for the schedule's first wait (30 s) by
// sites whose robots.txt answered 503 once. The later retries keep the
// schedule's spacing, so a site asks robots.txt no more often than before.
func (f *Fetcher) robotsRetry(since, now time.Time, siteWait, retryAfter, ttl time.Duration) time.Duration {
	s := RetrySchedule{Attempts: f.s.RetryAttempts, Window: f.s.RetryWindow}
	elapsed, waited := now.Sub(since), time.Duration(0)
	for n := 1; ; n++ {
		w, ok := s.Delay(n)
		if !ok {
			return ttl
		}
		if n == 1 {
			if elapsed > 0 {
				continue // the first retry is behind: it waited the site's wait, not the schedule's
			}
			w = min(w, max(siteWait, 0))
		}
		if waited+w > elapsed {
			return min(max(w, retryAfter), ttl)
		}
		waited += w
	}
}

// keepRobots caches the entry an answer of origin gave: also when the
// caller stopped after the answer was read (stop.go), so that the next
// run obeys the file, and asks it again conditionally, rather than asking
// for it anew.
func (f *Fetcher) keepRobots(ctx context.Context, origin string, e RobotsEntry) {
	pctx, cancel := Outlive(ctx, StopGrace)
	defer cancel()
	f.robots.Put(pctx, origin, e)
}
