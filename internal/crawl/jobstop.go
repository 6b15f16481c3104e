package crawl

import (
	"context"
	"errors"
	"fmt"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
)

// A job is one site's work under way; the stops that end it early, all of
// them "stop, record nothing, leave it due": the site opted out, it waits
// beyond the horizon, the guard refuses its address (and, in
// storefault.go, the store cannot write).

// A site whose owner opts out while its work is under way (the public
// site's form) must get no further request, and its half-done work must
// be left as it was, not recorded as failed: the fetcher refuses every
// request to it (fetch.ErrOptedOut), and the first refusal ends the job's
// context, which every job already treats as "stop, record nothing, leave
// it due". workSite then gives the site back unfinished; no round offers
// its items again, since its sources are paused.

// job is one site's work under way (workSite's): the site it is for and the end of its context, which its
// fetches call on an opt-out or on the guard's refusal of the site. It
// rides in the job's context, the one value every step already carries
// down to its fetches.
type job struct {
	site string
	stop context.CancelCauseFunc
}

type jobKey struct{}

// withJob gives the work on site a context that its fetches can end.
func withJob(ctx context.Context, site string) (context.Context, context.CancelCauseFunc) {
	ctx, stop := context.WithCancelCause(ctx)
	return context.WithValue(ctx, jobKey{}, &job{site: site, stop: stop}), stop
}

// jobOf is the job ctx belongs to, nil outside one.
func jobOf(ctx context.Context) *job {
	j, _ := ctx.Value(jobKey{}).(*job)
	return j
}

// stopIfOptedOut ends the job's context when err says the site opted out.
func stopIfOptedOut(ctx context.Context, err error) {
	if j := jobOf(ctx); j != nil && errors.Is(err, fetch.ErrOptedOut) {
		j.stop(fetch.ErrOptedOut)
	}
}

// optedOut reports whether a job's context was ended by an opt-out.
func optedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), fetch.ErrOptedOut)
}

// fetch is every job's c.Fetcher.Fetch.
func (c *Crawler) fetch(ctx context.Context, req fetch.Request) fetch.Result {
	res := c.Fetcher.Fetch(ctx, req)
	c.stopIfStoreDown(ctx, res.Err)
	stopIfOptedOut(ctx, res.Err)
	stopIfGuarded(ctx, res.FinalSite, res.Err)
	stopIfWaiting(ctx, res.FinalSite, res.Err)
	return res
}

// robots is every job's c.Fetcher.Robots, for the origin of src's
// homepage.
func (c *Crawler) robots(ctx context.Context, src store.Source) (fetch.RobotsEntry, error) {
	e, err := c.Fetcher.Robots(ctx, src.URL)
	c.stopIfStoreDown(ctx, err)
	stopIfOptedOut(ctx, err)
	stopIfGuarded(ctx, src.Site, err)
	stopIfWaiting(ctx, src.Site, err)
	return e, err
}

// A site whose next permitted request is beyond the job's horizon
// (fetch.WaitError: a back-off, a Retry-After) ends the job as an opt-out
// does: nothing is recorded, every item stays due with its tries
// untouched, and the site's work waits for a later visit. A wait of
// another site (a redirect into it) is only that item's: it is retried
// when that site may be asked (retryOf).

// stopIfWaiting ends the job's context, with err as its cause, when err
// is a wait met by a request to site and site is the job's own.
func stopIfWaiting(ctx context.Context, site string, err error) {
	if _, ok := fetch.WaitUntil(err); ok {
		if j := jobOf(ctx); j != nil && j.site == site {
			j.stop(err)
		}
	}
}

// leftToWait is the wait that ended the job's context, if one did.
func leftToWait(ctx context.Context) (error, bool) {
	cause := context.Cause(ctx)
	if _, ok := fetch.WaitUntil(cause); ok {
		return cause, true
	}
	return nil, false
}

// A target the private-address guard refuses (fetch.GuardRefused:
// ALLOW_PRIVATE off, a loopback or private address) is neither a fault
// that says "try later" nor the site's answer: it is this crawler's own
// decision, the same for every item of the site until the operator changes
// the setting. Like an opt-out, the first refusal of the job's site ends the job's context,
// which every job treats as "stop, record nothing, leave it due": no try
// is counted, no item changes state, no robots.txt entry is stored (the
// fetcher stores none), and the next run asks again. The site's work is
// over for the round, and the round reports the guard's error.

// stopIfGuarded ends the job's context, with err as its cause, when err is
// the guard's refusal of a request to site and site is the job's own; a
// refusal of another site's address (a feed's link or a redirect into a
// private address) is only that item's final answer, as a bad URL is.
func stopIfGuarded(ctx context.Context, site string, err error) {
	if j := jobOf(ctx); j != nil && fetch.GuardRefused(err) && j.site == site {
		j.stop(err)
	}
}

// guarded is the guard's refusal that ended the job's context, nil when
// none did.
func guarded(ctx context.Context) error {
	if cause := context.Cause(ctx); cause != nil && fetch.GuardRefused(cause) {
		if errors.Is(cause, fetch.ErrUnresolvedTarget) {
			return fmt.Errorf("not crawled, our resolver cannot resolve it (PROXY_DNS=proxy leaves that to the proxy): %w", cause)
		}
		return fmt.Errorf("not crawled, ALLOW_PRIVATE is off: %w", cause)
	}
	return nil
}
