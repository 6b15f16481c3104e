package crawl

import (
	"context"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
)

// Retries. A try that fails with a fault that says "try later" (429, 503,
// another 5xx, a timeout, a reset: fetch.Result.Transient) leaves its item
// owed — a page pending, a feed active, a sitemap in its state, a
// discovery undone — and records when it may be tried again: after the
// retry schedule's next wait (RETRY_ATTEMPTS over RETRY_WINDOW), never
// sooner than the server's Retry-After; the site's own back-off is the
// fetcher's, which holds the next request to the site anyway. Only when
// the item has had all its tries is the failure final (a page in state
// error, a feed in error, …), with its last reason kept. A request that
// robots.txt could not be read for was not tried at all: it waits for
// robots.txt's own retry and spends none of its tries.
//
// A retry due within the frontier's Horizon is waited for by the site's
// sequence itself (a timer, in the same run), for at most retryBudget from
// the start of the site's visit; a later one is left to a later run. The
// budget is what makes a visit end whatever the settings: an item whose
// tries start again (a discovery put off for ROBOTS_GUESS_TTL, an item
// waiting for robots.txt) could otherwise come due again and again within
// one visit.

// retryBudget is the longest a site's visit goes on waiting for retries.
const retryBudget = 2 * time.Minute

// maxRetryRounds bounds the passes a site's sequence makes over its work
// in one run while it waits for retries.
const maxRetryRounds = 20

// retryOf is the retry an item of itemSite that has failed attempts
// times in a row gets after res: ok is false when res is not a fault that says "try
// later" or when the item has had all its tries (then r still counts the
// tries and names the failure).
func (c *Crawler) retryOf(ctx context.Context, itemSite string, res fetch.Result, attempts int) (r store.Retry, ok bool) {
	now := c.Clock.Now()
	if until, ok := fetch.WaitUntil(res.Err); ok {
		// Not tried: the site it would go to asked for a wait beyond the
		// horizon. It is tried once that site may be asked, its tries
		// untouched.
		return store.Retry{Attempts: attempts, At: later(until, now), Error: "waiting for " + res.FinalSite}, true
	}
	if res.Outcome == model.OutcomeDisallowed && res.Robots == robots.StateUnreachable {
		// robots.txt could not be read, so the item was not tried. When it
		// is the item's own site's, the item follows that robots.txt's
		// own schedule, its tries untouched. When a redirect led into
		// another site whose robots.txt is unreachable, the redirect is
		// the item's answer, and a broken site it points to is its
		// failure: a try is counted, on the retry schedule, no sooner
		// than that robots.txt is asked again.
		at := now.Add(fetch.FirstRetry)
		if e, err := c.Fetcher.Robots(ctx, res.FinalURL); err == nil && e.Expires.After(now) {
			at = e.Expires
		}
		if res.FinalSite == itemSite || res.FinalURL == "" {
			return store.Retry{Attempts: attempts, At: at, Error: "robots.txt unreachable"}, true
		}
		n := attempts + 1
		r = store.Retry{Attempts: n, Error: "robots.txt of " + res.FinalSite + " unreachable"}
		wait, ok := fetch.RetrySchedule{Attempts: c.Settings.RetryAttempts, Window: c.Settings.RetryWindow}.Delay(n)
		if !ok {
			return r, false
		}
		r.At = later(now.Add(wait), at)
		return r, true
	}
	if !res.Transient() {
		return store.Retry{}, false
	}
	n := attempts + 1
	r = store.Retry{Attempts: n, Error: errText(res)}
	wait, ok := fetch.RetrySchedule{Attempts: c.Settings.RetryAttempts, Window: c.Settings.RetryWindow}.Delay(n)
	if !ok {
		return r, false
	}
	r.At = now.Add(max(wait, res.RetryAfter(now)))
	return r, true
}

// retryGuess is the standing of a discovery that failed and has had all
// its tries: it is put off for ROBOTS_GUESS_TTL (a source is never judged
// feedless on failures), and its tries start again from there.
func (c *Crawler) retryGuess(why string) store.Retry {
	return store.Retry{At: c.Clock.Now().Add(max(c.Settings.RobotsGuessTTL, time.Second)), Error: why}
}

// awaitRetries waits, with a timer, for the soonest retry the site's items
// wait for when it is due within the Horizon and before deadline; false
// when there is none that soon (or ctx ended), and the site's work for this
// run is over. A retry set after passBegan (the start of the pass over the
// site's work that has just ended) that is already due — a short wait, a
// slow pass — is not left behind: the next pass begins at once.
func (c *Crawler) awaitRetries(ctx context.Context, site string, passBegan, deadline time.Time) (bool, error) {
	now := c.Clock.Now()
	at, ok, err := c.Store.SiteRetryAt(ctx, site, passBegan)
	if err != nil || !ok || at.Sub(now) > Horizon || at.After(deadline) {
		return false, err
	}
	if !at.After(now) {
		return true, nil
	}
	c.Log.Debug("waiting for a retry", "site", site, "until", at)
	if err := c.Clock.Sleep(ctx, at.Sub(now)); err != nil {
		return false, nil
	}
	return true, nil
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
