package crawl

import (
	"context"
	"errors"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
)

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
