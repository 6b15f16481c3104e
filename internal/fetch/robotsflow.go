package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"corpus.blog/corpusbot/internal/robots"
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
		return RobotsEntry{}, fmt.Errorf("robots %s: %w", rawURL, err)
	}
	return f.robotsEntry(ctx, u)
}

// robotsEntry is the fresh entry for u's origin; concurrent callers meeting
// the same stale origin share one read.
func (f *Fetcher) robotsEntry(ctx context.Context, u *url.URL) (RobotsEntry, error) {
	origin := Origin(u)
	if e, ok := f.robots.Get(origin); ok && f.clock.Now().Before(e.Expires) {
		return e, nil
	}
	if f.withheld(ctx, Site(u.Host)) {
		return RobotsEntry{}, fmt.Errorf("robots.txt of %s: %w", origin, ErrOptedOut)
	}
	asked := f.clock.Now()
	f.robotsOnce.do(ctx, origin, func() {
		if e, ok := f.robots.Get(origin); ok && f.clock.Now().Before(e.Expires) {
			return // another caller refreshed it between our look and the flight
		}
		f.refreshRobots(ctx, u)
	})
	// An entry read since we asked is obeyed even if a long wait on the
	// lease has already aged it past its TTL.
	if e, ok := f.robots.Get(origin); ok && (f.clock.Now().Before(e.Expires) || !e.Checked.Before(asked)) {
		return e, nil
	}
	if err := ctx.Err(); err != nil {
		return RobotsEntry{}, fmt.Errorf("%w: %w", errRobotsAbandoned, err)
	}
	// The read ended without an entry to obey (the reader's context ended):
	// nothing is fetched on a guess.
	return RobotsEntry{}, fmt.Errorf("%s: %w", origin, errRobotsAbandoned)
}

// fetchRobots is Fetch for PurposeRobots: a read now, whatever the cache.
func (f *Fetcher) fetchRobots(ctx context.Context, u *url.URL) Result {
	var res Result
	f.robotsOnce.do(ctx, Origin(u), func() { res = f.refreshRobots(ctx, u) })
	if res.Outcome == "" {
		e, err := f.robotsEntry(ctx, u)
		if err != nil {
			return Result{Outcome: OutcomeError, FinalURL: u.String(), Err: err}
		}
		return Result{Outcome: OutcomeUnchanged, FinalURL: robotsURL(u).String(), Robots: e.Verdict.State,
			ETag: e.ETag, LastModified: e.LastModified}
	}
	return res
}

func robotsURL(u *url.URL) *url.URL {
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
}

// refreshRobots reads the robots.txt of u's origin, following redirects up to
// robots.MaxRedirects, decides what to obey with robots.Decide and caches it.
// Every hop goes through the lease of the site it lands on.
func (f *Fetcher) refreshRobots(ctx context.Context, u *url.URL) Result {
	origin := Origin(u)
	prev, _ := f.robots.Get(origin)
	cur := robotsURL(u)
	seen := map[string]bool{cur.String(): true}
	var redirects []string
	for hops := 0; ; hops++ {
		etag, lm := "", ""
		if hops == 0 && prev.Last != nil {
			etag, lm = prev.ETag, prev.LastModified
		}
		ex := f.leased(ctx, Site(cur.Host), cur, PurposeRobots, 0, etag, lm, nil)
		if ex.ours {
			return Result{Outcome: OutcomeError, FinalURL: cur.String(), Err: ex.err}
		}
		now := f.clock.Now()
		if ex.outcome == OutcomeUnchanged && prev.Last != nil {
			// The copy we hold is still the file: an answer, as good as a 200.
			e := RobotsEntry{
				Verdict: robots.Verdict{State: robots.StateParsed, File: prev.Last.File, TTL: f.s.RobotsTTL},
				Checked: now, Expires: now.Add(f.s.RobotsTTL), Last: &robots.Copy{File: prev.Last.File, FetchedAt: now},
				ETag: prev.ETag, LastModified: prev.LastModified,
			}
			f.robots.Put(origin, e)
			res := resultOf(cur, ex, Request{ETag: etag, LastModified: lm})
			res.Redirects, res.Robots = redirects, robots.StateParsed
			return res
		}
		in := robots.Fetch{Status: ex.status, Body: ex.body, Redirects: hops}
		if ex.outcome == OutcomeError {
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
			seen[ex.location.String()] = true
			redirects = append(redirects, ex.location.String())
			cur = ex.location
			continue
		}
		e := RobotsEntry{Verdict: v, Checked: now, Expires: now.Add(v.TTL), Last: prev.Last, ETag: prev.ETag, LastModified: prev.LastModified}
		switch v.State {
		case robots.StateParsed:
			e.Last = &robots.Copy{File: v.File, FetchedAt: now}
			r := resultOf(cur, ex, Request{})
			e.ETag, e.LastModified = r.ETag, r.LastModified
		case robots.StateUnreachable, robots.StateStaleCopy, robots.StateAbandoned:
			e.UnreachableSince = prev.UnreachableSince
			if e.UnreachableSince.IsZero() {
				e.UnreachableSince = now
			}
		}
		f.robots.Put(origin, e)
		res := resultOf(cur, ex, Request{ETag: etag, LastModified: lm})
		res.Redirects, res.Robots = redirects, v.State
		return res
	}
}
