package crawl

import (
	"context"
	"errors"

	"corpus.blog/corpusbot/internal/fetch"
)

// A site whose owner opts out while its work is under way (the public
// site's form) must get no further request, and its half-done work must
// be left as it was, not recorded as failed: the fetcher refuses every
// request to it (fetch.ErrOptedOut), and the first refusal ends the job's
// context, which every job already treats as "stop, record nothing, leave
// it due". perSite then drops the site's remaining items; the batches no
// longer offer them, since their sources are paused.

type stopKey struct{}

// withStop gives a job a context that its fetches can end.
func withStop(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, stop := context.WithCancelCause(ctx)
	return context.WithValue(ctx, stopKey{}, stop), stop
}

// stopIfOptedOut ends the job's context when err says the site opted out.
func stopIfOptedOut(ctx context.Context, err error) {
	if !errors.Is(err, fetch.ErrOptedOut) {
		return
	}
	if stop, ok := ctx.Value(stopKey{}).(context.CancelCauseFunc); ok {
		stop(fetch.ErrOptedOut)
	}
}

// optedOut reports whether a job's context was ended by an opt-out.
func optedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), fetch.ErrOptedOut)
}

// fetch is every job's c.Fetcher.Fetch.
func (c *Crawler) fetch(ctx context.Context, req fetch.Request) fetch.Result {
	res := c.Fetcher.Fetch(ctx, req)
	stopIfOptedOut(ctx, res.Err)
	stopIfGuarded(ctx, res.FinalURL, res.Err)
	return res
}

// robots is every job's c.Fetcher.Robots.
func (c *Crawler) robots(ctx context.Context, rawURL string) (fetch.RobotsEntry, error) {
	e, err := c.Fetcher.Robots(ctx, rawURL)
	stopIfOptedOut(ctx, err)
	stopIfGuarded(ctx, rawURL, err)
	return e, err
}
