package crawl

import (
	"context"
	"sync"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// perSite runs fn over items grouped by site: one site's items in order on
// one worker (they would only queue on the site's lease anyway), up to
// CONCURRENCY sites at once. It stops early when ctx ends and returns the first
// error other than the context's, after logging every job's error.
func perSite[T any](ctx context.Context, c *Crawler, items []T, urlOf func(T) string, fn func(context.Context, T) error) error {
	groups := map[string][]T{}
	var order []string
	for _, it := range items {
		site := model.SiteOfURL(urlOf(it))
		if _, ok := groups[site]; !ok {
			order = append(order, site)
		}
		groups[site] = append(groups[site], it)
	}
	work := make(chan []T)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range min(c.concurrency(), len(order)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				for _, it := range g {
					if ctx.Err() != nil {
						break
					}
					jctx, stop := withJob(fetch.WithWaitHorizon(ctx, Horizon), model.SiteOfURL(urlOf(it)))
					err := fn(jctx, it)
					stop(nil)
					if optedOut(jctx) {
						c.log().Info("site opted out: its work stops", "url", urlOf(it))
						break // the rest of the site's items too
					}
					if werr, ok := leftToWait(jctx); ok {
						// The rest of the site's items would wait as long:
						// left due, for a later batch.
						c.log().Info("site left to wait", "url", urlOf(it), "err", werr)
						break
					}
					if gerr := guarded(jctx); gerr != nil && ctx.Err() == nil {
						// The rest of the site's items would meet the same
						// refusal: left due, as this one is (retry.go).
						c.log().Warn("job failed", "url", urlOf(it), "err", gerr)
						mu.Lock()
						if first == nil {
							first = gerr
						}
						mu.Unlock()
						break
					}
					if err != nil && ctx.Err() == nil {
						c.log().Warn("job failed", "url", urlOf(it), "err", err)
						mu.Lock()
						if first == nil {
							first = err
						}
						mu.Unlock()
					}
				}
			}
		}()
	}
	for _, site := range order {
		select {
		case work <- groups[site]:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
