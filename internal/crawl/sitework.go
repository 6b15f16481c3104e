package crawl

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
		if c.storeFault(err) != nil {
			finished = "" // cut off by the store: taken up again once it records (storefault.go)
		}
		// Given back even when ctx ended (a clean stop): other workers take
		// it up at once instead of when the checkout lapses.
		// Its timing goes with it, so that whoever takes it up next (this
		// process, another, or the next run) holds its gaps.
		lastEnd, next := c.handover(site)
		if cerr := c.Store.CheckInSite(context.WithoutCancel(ctx), site, finished, lastEnd, next); cerr != nil && err == nil {
			err = cerr
		}
	}()
	var errs []error
	// fail keeps a failure of the site's work (one the job's own end did
	// not cause) and counts it in the round's errors where it happens, so
	// that the round says so however the visit ends (a wait, an opt-out).
	fail := func(err error) {
		r.progress.failure(reasonJob, failures(err))
		errs = append(errs, err)
	}
	for pass := 0; pass < maxRetryRounds && jctx.Err() == nil; pass++ {
		passBegan := c.Clock.Now()
		srcs, err := c.Store.SiteSources(jctx, site, passBegan)
		if err != nil {
			if err := ownFailures(jctx, err); err != nil {
				fail(fmt.Errorf("site %s: %w", site, err))
			}
			break
		}
		for _, step := range c.siteSteps(r, pass) {
			for i := range srcs {
				if jctx.Err() != nil || c.stopForStore(jctx) {
					break
				}
				if r.only != nil && !r.only.sources[srcs[i].ID] {
					continue // not the batch command's
				}
				// A step ended by the job's end (a wait, the stop) may have
				// failed before it: that failure is kept.
				if err := ownFailures(jctx, step(jctx, &srcs[i])); err != nil {
					if c.storeFault(err) != nil {
						// The store's fault: counted where the store noted
						// it, and said once by the frontier.
						c.Log.Debug("job failed", "site", site, "source", srcs[i].URL, "err", err)
						errs = append(errs, err)
						continue
					}
					c.Log.Warn("job failed", "site", site, "source", srcs[i].URL, "err", err)
					fail(err)
				}
			}
		}
		// Items that failed with "try later" and are due again soon are
		// waited for here, on a timer; later ones are left to a later run.
		again, err := c.awaitRetries(jctx, site, passBegan, retryDeadline)
		if err := ownFailures(jctx, err); err != nil {
			c.Log.Warn("job failed", "site", site, "err", err)
			fail(err)
		}
		if !again {
			break
		}
	}
	if optedOut(jctx) {
		c.Log.Info("site opted out: its work stops", "site", site)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.storeStopped(jctx); err != nil {
		if errors.Is(err, fetch.ErrOptOutCheck) {
			c.Log.Warn("opt-out check failed: nothing sent to the site; its work waits for the store", "site", site, "err", err)
		} else {
			c.Log.Debug("the store cannot record: the site's work waits for it", "site", site, "err", err)
		}
		return err
	}
	if err, ok := leftToWait(jctx); ok {
		// The wait, and what failed before it: not lost with the visit.
		return errors.Join(append([]error{err}, errs...)...)
	}
	if err := guarded(jctx); err != nil {
		return err // finished for the round all the same: nothing else of it can be asked
	}
	return errors.Join(errs...)
}

// ownFailures is the error a step of the job under ctx returned, without
// what the job's end caused once ctx has ended (the stop, or the job's own
// end: a wait, an opt-out, the guard, each of which is no failure of the
// work): the failures left, each of a join kept; nil when none.
func ownFailures(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var rest []error
		for _, e := range j.Unwrap() {
			if e = ownFailures(ctx, e); e != nil {
				rest = append(rest, e)
			}
		}
		return errors.Join(rest...)
	}
	_, waiting := fetch.WaitUntil(err)
	if waiting || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, fetch.ErrOptedOut) || fetch.GuardRefused(err) {
		return nil
	}
	return err
}

// step names the steps of a site's work, so that a round can take some of
// them (a batch command's): each is a bit.
type step uint8

const (
	stepDiscover         step = 1 << iota // robots.txt, homepage and feeds looked for
	stepFeeds                             // feeds read, each followed by its catalogue walk when due
	stepCatalogues                        // catalogue walks left unfinished
	stepSitemapDiscovery                  // sitemaps looked for
	stepSitemaps                          // sitemaps read
	stepPages                             // pages owed fetched
	allSteps             = stepDiscover | stepFeeds | stepCatalogues | stepSitemapDiscovery | stepSitemaps | stepPages
)

// siteStep is one step of a site's work, for one of its sources.
type siteStep func(ctx context.Context, src *store.SourceWork) error

// siteSteps are the steps of a site's work the round takes, in the order
// the work depends on; pass counts the passes made for retries, in which
// the round's chosen reads are not read again.
func (c *Crawler) siteSteps(r *round, pass int) []siteStep {
	all := []struct {
		step
		siteStep
	}{
		{stepDiscover, c.discoverStep},
		{stepFeeds, func(ctx context.Context, src *store.SourceWork) error { return c.feedsStep(ctx, r, pass, src) }},
		{stepCatalogues, func(ctx context.Context, src *store.SourceWork) error { return c.cataloguesStep(ctx, r, src) }},
		{stepSitemapDiscovery, c.sitemapDiscoveryStep},
		{stepSitemaps, func(ctx context.Context, src *store.SourceWork) error { return c.sitemapsStep(ctx, r, src) }},
		{stepPages, func(ctx context.Context, src *store.SourceWork) error { return c.pagesStep(ctx, r, src) }},
	}
	var out []siteStep
	for _, s := range all {
		if r.steps&s.step != 0 {
			out = append(out, s.siteStep)
		}
	}
	return out
}

// discoverStep discovers the source if its discovery is due.
func (c *Crawler) discoverStep(ctx context.Context, src *store.SourceWork) error {
	if !src.DiscoveryDue {
		return nil
	}
	if err := c.Discover(ctx, src.Source); err != nil {
		return err
	}
	return c.reload(ctx, src)
}

// feedsStep reads the source's feeds to read whatever the budget (never
// tried, or a retry due), and those chosen for the round (pass 0 only)
// that are still due; a batch command's round reads only those it chose.
// Each read is followed by the feed's catalogue walk when that is due.
func (c *Crawler) feedsStep(ctx context.Context, r *round, pass int, src *store.SourceWork) error {
	now := c.Clock.Now()
	fresh, err := c.Store.FeedsToRead(ctx, src.ID, now)
	if err != nil {
		return err
	}
	var read []store.Feed
	for _, f := range fresh {
		if r.only == nil || r.only.feeds[f.ID] {
			read = append(read, f)
		}
	}
	if chosen := r.polls[src.ID]; pass == 0 && len(chosen) > 0 {
		// Chosen at the round's start, possibly by other workers too: read
		// only if still due now that the site is ours.
		due, err := c.Store.SourcePollsDue(ctx, src.ID, now, now.Add(-c.Settings.FeedInterval), now.Add(-c.Settings.DisallowedRecheck))
		if err != nil {
			return err
		}
		for _, f := range due {
			if slices.ContainsFunc(chosen, func(p store.Feed) bool { return p.ID == f.ID }) &&
				!slices.ContainsFunc(read, func(p store.Feed) bool { return p.ID == f.ID }) {
				read = append(read, f)
			}
		}
	}
	var errs []error
	for _, f := range read {
		if ctx.Err() != nil {
			break
		}
		if err := c.PollFeed(ctx, f); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, c.catalogueOf(ctx, f))
	}
	return errors.Join(errs...)
}

// catalogueOf walks the catalogue of feed f, just read, if that is due.
func (c *Crawler) catalogueOf(ctx context.Context, f store.Feed) error {
	due, err := c.Store.SourceCataloguesDue(ctx, f.SourceID, c.Clock.Now())
	if err != nil {
		return err
	}
	for _, d := range due {
		if d.ID == f.ID {
			return c.WalkCatalogue(ctx, d)
		}
	}
	return nil
}

// cataloguesStep resumes or starts the catalogue walks due of feeds not
// read in this round.
func (c *Crawler) cataloguesStep(ctx context.Context, r *round, src *store.SourceWork) error {
	feeds, err := c.Store.SourceCataloguesDue(ctx, src.ID, c.Clock.Now())
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range feeds {
		if ctx.Err() != nil {
			break
		}
		if r.only != nil && !r.only.feeds[f.ID] {
			continue
		}
		errs = append(errs, c.WalkCatalogue(ctx, f))
	}
	return errors.Join(errs...)
}

// sitemapDiscoveryStep looks for the source's sitemaps if that is due.
func (c *Crawler) sitemapDiscoveryStep(ctx context.Context, src *store.SourceWork) error {
	if !src.SitemapDiscoveryDue {
		return nil
	}
	if err := c.DiscoverSitemaps(ctx, src.Source); err != nil {
		return err
	}
	return c.reload(ctx, src)
}

// sitemapsStep reads the source's sitemaps due (for a batch command's
// round, those it chose).
func (c *Crawler) sitemapsStep(ctx context.Context, r *round, src *store.SourceWork) error {
	sms, err := c.Store.SourceSitemapsDue(ctx, src.ID, c.Clock.Now(), r.sitemapsBefore(c))
	if err != nil {
		return err
	}
	var errs []error
	for _, sm := range sms {
		if ctx.Err() != nil {
			break
		}
		if r.only != nil && !r.only.sitemaps[sm.ID] {
			continue
		}
		errs = append(errs, c.ReadSitemap(ctx, sm))
	}
	return errors.Join(errs...)
}

// pagesPerVisit is how many pages owed are read from the store at a time,
// and how many a batch command's round fetches of one source: the rest
// are left to later commands or to run.
const pagesPerVisit = 1000

// pagesStep fetches every page the source owes, a batch at a time (a
// batch command's round: one batch).
func (c *Crawler) pagesStep(ctx context.Context, r *round, src *store.SourceWork) error {
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
			// merged into that record, and is not fetched again. One that
			// cannot be looked up is not fetched either, and that is a
			// failure, not a page done.
			id, due, err := c.Store.PostDue(ctx, p.URL)
			if err != nil && !errors.Is(err, model.ErrNotFound) {
				if ctx.Err() == nil {
					errs = append(errs, fmt.Errorf("page %s: %w", p.URL, err))
					failed++
				}
				continue
			}
			if err != nil || id != p.ID || !due {
				continue
			}
			if err := c.FetchPage(ctx, p); err != nil {
				errs = append(errs, err)
				failed++
			}
		}
		// A batch none of whose results could be stored would come back
		// whole: leave it to the next round rather than spin.
		if len(posts) < pagesPerVisit || failed == len(posts) || r.only != nil {
			break
		}
	}
	return errors.Join(errs...)
}

// reload reads the source again after a step changed it. A source gone
// meanwhile — merged into the source of the same blog (one added by its
// feed's URL: that one holds its feed and does the rest) or paused — is
// left with nothing to do.
func (c *Crawler) reload(ctx context.Context, src *store.SourceWork) error {
	fresh, err := c.Store.SourceWork(ctx, src.ID, c.Clock.Now())
	if errors.Is(err, model.ErrNotFound) {
		src.DiscoveryDue, src.SitemapDiscoveryDue = false, false
		return nil
	}
	if err != nil {
		return fmt.Errorf("source %s: %w", src.URL, err)
	}
	*src = fresh
	return nil
}
