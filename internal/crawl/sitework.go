package crawl

import (
	"context"
	"errors"
	"fmt"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// workSite does one checked-out site's due work, in the order a site's
// work depends on: discovery of its new sources (robots.txt first: the
// fetcher reads it before anything else of an origin), then its feeds
// (the round's re-reads and the feeds never read) with their catalogue
// walks, then catalogue walks left unfinished, then sitemap discovery,
// the sitemaps due, and last the pages all of that made due. Each step
// checks out the items it takes, as the batch commands do, so a batch command
// on another worker never takes the same item. The site is checked in as
// finished for the round when its work ran to the end, or given back
// unfinished when ctx ended or its owner opted out meanwhile.
//
// The site's requests wait at most the frontier's Horizon for the site: a
// longer wait ends the job (leftToWait), the site's items are left due and
// the site is given back unfinished, so that the round takes it up again
// when its time comes — unless mayRetake is false (it has been taken up
// again too often this round), when it is finished for the round.
func (c *Crawler) workSite(ctx context.Context, r *round, site string, mayRetake bool) (err error) {
	jctx, stop := withJob(fetch.WithWaitHorizon(ctx, Horizon), site)
	retryDeadline := c.Clock.Now().Add(retryBudget)
	defer stop(nil)
	defer func() {
		finished := r.id
		if _, waiting := leftToWait(jctx); ctx.Err() != nil || optedOut(jctx) || (waiting && mayRetake) {
			finished = ""
		}
		// Given back even when ctx ended (a clean stop): other workers take
		// it up at once instead of when the checkout lapses.
		if cerr := c.Store.CheckInSite(context.WithoutCancel(ctx), site, finished); cerr != nil && err == nil {
			err = cerr
		}
	}()
	var errs []error
	for pass := 0; pass < maxRetryRounds && jctx.Err() == nil; pass++ {
		srcs, err := c.Store.SiteSources(jctx, site)
		if err != nil {
			return err
		}
		for _, step := range c.siteSteps(r, pass) {
			for i := range srcs {
				if jctx.Err() != nil {
					break
				}
				if err := step(jctx, &srcs[i]); err != nil && jctx.Err() == nil {
					c.log().Warn("job failed", "site", site, "source", srcs[i].URL, "err", err)
					errs = append(errs, err)
				}
			}
		}
		// Items that failed with "try later" and are due again soon are
		// waited for here, on a timer; later ones are left to a later run.
		again, err := c.awaitRetries(jctx, site, retryDeadline)
		if err != nil {
			errs = append(errs, err)
		}
		if !again {
			break
		}
	}
	if optedOut(jctx) {
		c.log().Info("site opted out: its work stops", "site", site)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err, ok := leftToWait(jctx); ok {
		return err
	}
	if err := guarded(jctx); err != nil {
		return err // finished for the round all the same: nothing else of it can be asked
	}
	return errors.Join(errs...)
}

// siteStep is one step of a site's work, for one of its sources.
type siteStep func(ctx context.Context, src *store.Source) error

// siteSteps are the steps of a site's work; pass counts the passes made
// for retries, in which the round's chosen re-reads are not read again.
func (c *Crawler) siteSteps(r *round, pass int) []siteStep {
	polls := r.polls
	if pass > 0 {
		polls = nil
	}
	return []siteStep{
		c.discoverStep,
		func(ctx context.Context, src *store.Source) error { return c.feedsStep(ctx, polls, src) },
		c.cataloguesStep,
		c.sitemapDiscoveryStep,
		func(ctx context.Context, src *store.Source) error { return c.sitemapsStep(ctx, r, src) },
		c.pagesStep,
	}
}

// discoverStep discovers the source if it never was and is not postponed.
func (c *Crawler) discoverStep(ctx context.Context, src *store.Source) error {
	if !src.Discovered.IsZero() || src.DiscoverAfter.After(c.Clock.Now()) {
		return nil
	}
	fresh, ok, err := c.Store.CheckOutSource(ctx, src.ID)
	if err != nil || !ok {
		return err
	}
	if !fresh.Discovered.IsZero() {
		*src = fresh
		return nil
	}
	if err := c.Discover(ctx, fresh); err != nil {
		return err
	}
	err = c.reload(ctx, src)
	if errors.Is(err, model.ErrNotFound) {
		// Merged into the source of the same blog (a source added by its
		// feed's URL): that one holds its feed and does the rest; this
		// copy is left with nothing to do.
		src.Discovered, src.SitemapsChecked = c.Clock.Now(), c.Clock.Now()
		return nil
	}
	return err
}

// feedsStep reads the source's feeds chosen for the round and those never
// read, each followed by its catalogue walk when that is due.
func (c *Crawler) feedsStep(ctx context.Context, polls map[int64][]store.Feed, src *store.Source) error {
	fresh, err := c.Store.FeedsToRead(ctx, src.ID, c.Clock.Now())
	if err != nil {
		return err
	}
	var errs []error
	seen := map[int64]bool{}
	for _, f := range append(polls[src.ID], fresh...) {
		if ctx.Err() != nil {
			break
		}
		if seen[f.ID] {
			continue // chosen for the round and due for a retry too
		}
		seen[f.ID] = true
		if err := c.PollFeed(ctx, f); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, c.catalogueOf(ctx, f.ID, f.SourceID))
	}
	return errors.Join(errs...)
}

// cataloguesStep resumes or starts the catalogue walks of feeds not polled
// in this round.
func (c *Crawler) cataloguesStep(ctx context.Context, src *store.Source) error {
	feeds, err := c.Store.SourceCataloguesDue(ctx, src.ID, c.Clock.Now())
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range feeds {
		if ctx.Err() != nil {
			break
		}
		errs = append(errs, c.WalkCatalogue(ctx, f))
	}
	return errors.Join(errs...)
}

// sitemapDiscoveryStep looks for the source's sitemaps once it is
// discovered, unless that was done or is postponed.
func (c *Crawler) sitemapDiscoveryStep(ctx context.Context, src *store.Source) error {
	if src.Discovered.IsZero() || !src.SitemapsChecked.IsZero() || src.SitemapsAfter.After(c.Clock.Now()) {
		return nil
	}
	fresh, ok, err := c.Store.CheckOutSource(ctx, src.ID)
	if err != nil || !ok {
		return err
	}
	if !fresh.SitemapsChecked.IsZero() {
		*src = fresh
		return nil
	}
	if err := c.DiscoverSitemaps(ctx, fresh); err != nil {
		return err
	}
	return c.reload(ctx, src)
}

// sitemapsStep reads the source's sitemaps not read for SITEMAP_INTERVAL.
func (c *Crawler) sitemapsStep(ctx context.Context, r *round, src *store.Source) error {
	sms, err := c.Store.SourceSitemapsDue(ctx, src.ID, c.Clock.Now(), r.sitemapsBefore(c))
	if err != nil {
		return err
	}
	var errs []error
	for _, sm := range sms {
		if ctx.Err() != nil {
			break
		}
		errs = append(errs, c.ReadSitemap(ctx, sm))
	}
	return errors.Join(errs...)
}

// pagesStep fetches every page the source owes, a batch at a time.
func (c *Crawler) pagesStep(ctx context.Context, src *store.Source) error {
	var errs []error
	for ctx.Err() == nil {
		posts, err := c.Store.PostsDue(ctx, src.ID, c.Clock.Now(), pagesPerVisit)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		failed := 0
		for _, p := range posts {
			if ctx.Err() != nil {
				break
			}
			// A page fetched earlier in the batch may have shown this post
			// to be another's (a canonical link, a spelling learnt): it was
			// merged into that record, and is not fetched again.
			if now, err := c.Store.Post(ctx, p.URL); err != nil || now.ID != p.ID || !now.Due {
				continue
			}
			if err := c.FetchPage(ctx, p); err != nil {
				errs = append(errs, err)
				failed++
			}
		}
		// A batch none of whose results could be stored would come back
		// whole: leave it to the next round rather than spin.
		if len(posts) < pagesPerVisit || failed == len(posts) {
			break
		}
	}
	return errors.Join(errs...)
}

// reload reads the source again after a step changed it.
func (c *Crawler) reload(ctx context.Context, src *store.Source) error {
	fresh, err := c.Store.Source(ctx, src.ID)
	if err != nil {
		return fmt.Errorf("source %s: %w", src.URL, err)
	}
	*src = fresh
	return nil
}
