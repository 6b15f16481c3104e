package crawl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

// The frontier: a round of `run` is not a sequence of phases over the whole
// population but every site with due work worked on as one sequence of its
// own — robots.txt, discovery, feeds, catalogue walks, sitemaps, pages, in
// that order for that site — with up to CONCURRENCY sites in flight at
// once. A site in flight is one goroutine that spends most of its life
// waiting out its gaps on the clock, so a site that must wait costs a
// timer, not a worker; as sites finish, the frontier checks out more from
// the store, a few at a time, so a round never waits on its slowest site
// before starting others, and workers sharing a database share its sites
// from the first minute.

// checkoutBatch is the most sites checked out at once: small, so that
// workers starting together interleave instead of one taking everything.
const checkoutBatch = 16

// heldPoll is how often a worker with nothing left of its own looks again
// for due sites that other workers hold (`run --once` waits for them: they
// may be given back unfinished).
const heldPoll = 2 * time.Second

// busyClock is a simulated clock that must know which goroutines are at
// work, because it moves time only when all of them wait
// (simweb.EventClock): the frontier tells it of every site it starts.
type busyClock interface{ Busy() (done func()) }

// busyTracker is the clock's Busy, or a no-op for a clock that needs none.
func (c *Crawler) busyTracker() func() (done func()) {
	if t, ok := c.Clock.(busyClock); ok {
		return t.Busy
	}
	return func() func() { return func() {} }
}

// visitEnder is a Fetcher that keeps something for a site between requests
// that it can let go of once the site's visit is over (*fetch.Fetcher: its
// open connections).
type visitEnder interface{ VisitDone(site string) }

// visitDone tells the fetcher that the frontier is done with site for now.
func (c *Crawler) visitDone(site string) {
	if f, ok := c.Fetcher.(visitEnder); ok {
		f.VisitDone(site)
	}
}

// round is one pass of the frontier.
type round struct {
	id    string    // names the round in site_checkouts: finished sites are not taken up again
	start time.Time // when it began (the clock's time)
	// polls are the feeds due for a re-read that this round may read
	// (FEED_BUDGET), checked out at its start, by source; pollSites their
	// sources' sites, most overdue first.
	polls     map[int64][]store.Feed
	pollSites []string
	progress  *Progress
}

// newRound starts a round at the clock's now, choosing its feed re-reads.
func (c *Crawler) newRound(ctx context.Context) (*round, error) {
	b := make([]byte, 6)
	rand.Read(b)
	now := c.Clock.Now()
	r := &round{id: fmt.Sprintf("%d-%s", now.UnixNano(), hex.EncodeToString(b)), start: now, polls: map[int64][]store.Feed{}}
	if err := c.calibrate(ctx); err != nil {
		c.log().Warn("schedule not recalibrated", "err", err) // the last one stays in force
	}
	feeds, err := c.Store.PollsDue(ctx, now, now.Add(-c.Settings.FeedInterval), now.Add(-c.Settings.DisallowedRecheck), c.feedBudget())
	if err != nil {
		return nil, fmt.Errorf("round: feeds due: %w", err)
	}
	seen := map[string]bool{}
	for _, f := range feeds {
		src, err := c.Store.Source(ctx, f.SourceID)
		if err != nil {
			return nil, fmt.Errorf("round: source of feed %s: %w", f.URL, err)
		}
		r.polls[f.SourceID] = append(r.polls[f.SourceID], f)
		if !seen[src.Site] {
			seen[src.Site] = true
			r.pollSites = append(r.pollSites, src.Site)
		}
	}
	return r, nil
}

func (r *round) query(c *Crawler, after int64) store.SiteQuery {
	now := c.Clock.Now()
	return store.SiteQuery{Now: now, SitemapsBefore: r.sitemapsBefore(c), Round: r.id, After: after}
}

// sitemapsBefore is the last read before which a sitemap is due: older than
// SITEMAP_INTERVAL, and read before the round began (so that an interval
// of 0, "always due", means once a round).
func (r *round) sitemapsBefore(c *Crawler) time.Time {
	before := c.Clock.Now().Add(-c.Settings.SitemapInterval)
	if r.start.Before(before) {
		return r.start
	}
	return before
}

// frontier works the round's sites until none is due, none is in flight
// and no other worker holds one that is due, or ctx ends.
func (c *Crawler) frontier(ctx context.Context, r *round) error {
	slots := c.concurrency()
	type done struct {
		site string
		err  error
	}
	results := make(chan done)
	inFlight := map[string]bool{}
	next := &candidates{c: c, r: r, inFlight: inFlight}
	var errs []error
	busy := c.busyTracker()
	idle := busy() // this goroutine, while it checks sites out
	defer func() { idle() }()
	finish := func(d done) {
		delete(inFlight, d.site)
		r.progress.finished1(d.err)
		if d.err != nil && ctx.Err() == nil {
			errs = append(errs, fmt.Errorf("site %s: %w", d.site, d.err))
		}
	}
	for {
		for len(inFlight) < slots && ctx.Err() == nil {
			sites, err := next.take(ctx, min(slots-len(inFlight), checkoutBatch))
			if err != nil {
				errs = append(errs, err)
				break
			}
			if len(sites) == 0 {
				break
			}
			for _, site := range sites {
				inFlight[site] = true
				r.progress.started1()
				working := busy()
				go func() {
					err := c.workSite(ctx, r, site)
					c.visitDone(site)
					working()
					results <- done{site, err}
				}()
			}
		}
		if len(inFlight) == 0 {
			if ctx.Err() != nil || len(errs) > 0 {
				break
			}
			// Nothing of ours is left: wait for what other workers hold,
			// which they may give back unfinished.
			held, err := c.Store.DueSitesHeld(ctx, r.query(c, 0))
			if err != nil {
				errs = append(errs, err)
				break
			}
			if held == 0 {
				break
			}
			c.log().Debug("waiting for sites other workers hold", "sites", held)
			if err := c.Clock.Sleep(ctx, heldPoll); err != nil {
				break
			}
			next.restart()
			continue
		}
		idle()
		finish(<-results)
		idle = busy()
		// Every site finished meanwhile is taken too, so that their slots
		// are refilled by one checkout: refilled one at a time, each
		// waiting for its checkout's commit, a crawl of short site visits
		// (a day of feed polls) started no more sites a second than the
		// store commits.
	drain:
		for {
			select {
			case d := <-results:
				finish(d)
			default:
				break drain
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// candidates yields the sites a round checks out: first those of its feed
// re-reads (most overdue first), then every site with due work, in the
// order of its sources, sweep after sweep while a sweep finds any.
type candidates struct {
	c        *Crawler
	r        *round
	inFlight map[string]bool
	polled   int   // r.pollSites already offered
	after    int64 // the sweep's cursor: the last source ID looked at
	found    bool  // this sweep checked out a site
	empty    bool  // a whole sweep, from the first source, checked out nothing
}

// restart begins a new sweep, for sites given back or released since.
func (cs *candidates) restart() { cs.after, cs.found, cs.empty = 0, false, false }

// take checks out up to n sites.
func (cs *candidates) take(ctx context.Context, n int) ([]string, error) {
	var out []string
	for len(out) < n && cs.polled < len(cs.r.pollSites) {
		var want []string
		for cs.polled < len(cs.r.pollSites) && len(want) < n-len(out) {
			if site := cs.r.pollSites[cs.polled]; !cs.inFlight[site] {
				want = append(want, site)
			}
			cs.polled++
		}
		got, err := cs.c.Store.CheckOutSites(ctx, cs.r.id, want)
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	for len(out) < n && !cs.empty {
		due, err := cs.c.Store.DueSites(ctx, cs.r.query(cs.c, cs.after), 4*n)
		if err != nil {
			return out, err
		}
		if len(due) == 0 {
			// The sweep reached the last source. If it checked out anything,
			// sites may have become due behind it (given back by another
			// worker, say): sweep again; else all is handed out.
			if !cs.found {
				cs.empty = true
				break
			}
			cs.after, cs.found = 0, false
			continue
		}
		var want []string
		seen := map[string]bool{}
		for _, d := range due {
			cs.after = d.SourceID
			if cs.inFlight[d.Site] || seen[d.Site] || contains(out, d.Site) {
				continue
			}
			seen[d.Site] = true
			want = append(want, d.Site)
			if len(want) == n-len(out) {
				break
			}
		}
		got, err := cs.c.Store.CheckOutSites(ctx, cs.r.id, want)
		if err != nil {
			return out, err
		}
		if len(got) > 0 {
			cs.found = true
		}
		out = append(out, got...)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
