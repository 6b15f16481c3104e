package crawl

import (
	"context"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// candidates yields the sites a round checks out: first its own sites
// (those of its feed re-reads, most overdue first, or a batch command's;
// one still in flight for an earlier round is offered again once it has
// finished), then, for `run`, every site with due work, in the order of
// its sources, sweep after sweep while a sweep finds any. A batch
// command's site that left to wait is offered again when its wait is
// over.
type candidates struct {
	c       *Crawler
	r       *round
	offered int                 // r.sites already offered
	later   []string            // r.sites that were in flight when offered
	waiting []store.WaitingSite // a batch command's sites that left to wait, to offer again
	after   int64               // the sweep's cursor: the last source ID looked at
	found   bool                // this sweep checked out a site
	empty   bool                // a whole sweep, from the first source, checked out nothing
}

// soonest is the earliest end of a wait of the sites left to wait, if one
// ends by limit; those that end later stay left waiting (and are reported
// so when the round is over).
func (cs *candidates) soonest(limit time.Time) (time.Time, bool) {
	var at time.Time
	for _, w := range cs.waiting {
		if !w.Until.After(limit) && (at.IsZero() || w.Until.Before(at)) {
			at = w.Until
		}
	}
	return at, !at.IsZero()
}

// restart begins a new sweep, for sites given back, released or come due
// since.
func (cs *candidates) restart() { cs.after, cs.found, cs.empty = 0, false, false }

// take checks out up to n sites that are not in flight.
func (cs *candidates) take(ctx context.Context, n int, inFlight map[string]bool) ([]string, error) {
	var out []string
	if len(cs.waiting) > 0 {
		now := cs.c.Clock.Now()
		kept := cs.waiting[:0]
		for _, w := range cs.waiting {
			if w.Until.After(now) || inFlight[w.Site] || len(cs.later) >= n {
				kept = append(kept, w)
			} else {
				cs.later = append(cs.later, w.Site)
			}
		}
		cs.waiting = kept
	}
	if len(cs.later) > 0 {
		var want, still []string
		for _, site := range cs.later {
			if inFlight[site] || len(want) == n {
				still = append(still, site)
			} else {
				want = append(want, site)
			}
		}
		cs.later = still
		got, err := cs.checkOut(ctx, want)
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	for len(out) < n && cs.offered < len(cs.r.sites) {
		var want []string
		for cs.offered < len(cs.r.sites) && len(want) < n-len(out) {
			if site := cs.r.sites[cs.offered]; inFlight[site] {
				cs.later = append(cs.later, site)
			} else if !contains(out, site) {
				want = append(want, site)
			}
			cs.offered++
		}
		got, err := cs.checkOut(ctx, want)
		if err != nil {
			return out, err
		}
		out = append(out, got...)
	}
	if !cs.r.sweep {
		// Its sites that left to wait are nextDue's to wake for.
		cs.empty = cs.offered == len(cs.r.sites) && len(cs.later) == 0
		return out, nil
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
				cs.empty = len(cs.later) == 0
				break
			}
			cs.after, cs.found = 0, false
			continue
		}
		var want []string
		seen := map[string]bool{}
		for _, d := range due {
			cs.after = d.SourceID
			if inFlight[d.Site] || seen[d.Site] || contains(out, d.Site) {
				continue
			}
			seen[d.Site] = true
			want = append(want, d.Site)
			if len(want) == n-len(out) {
				break
			}
		}
		got, err := cs.checkOut(ctx, want)
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

// checkOut checks out those of want that are free for the round, and
// hands each one's timing, as the workers before left it, to the fetcher
// before its first request.
func (cs *candidates) checkOut(ctx context.Context, want []string) ([]string, error) {
	if len(want) == 0 {
		return nil, nil
	}
	got, err := cs.c.checkoutStore().CheckOutSites(ctx, cs.r.id, want)
	sites := make([]string, 0, len(got))
	for _, co := range got {
		cs.c.resumeSite(co)
		sites = append(sites, co.Site)
	}
	return sites, err
}

// siteHandover is a Fetcher that keeps a site's timing in this process
// (*fetch.Fetcher over its local lease), to be handed on with the site's
// checkout: see fetch.Fetcher.Handover.
type siteHandover interface {
	Handover(site string) (lastEnd, next time.Time)
	Resume(site string, lastEnd time.Time, w model.SiteWait)
}

// resumeSite gives the fetcher the timing a checkout brought of its site.
func (c *Crawler) resumeSite(co store.Checkout) {
	h, ok := c.Fetcher.(siteHandover)
	if !ok {
		return
	}
	w := model.SiteWait{Site: co.Site, Gap: co.Wait.Gap, End: co.Wait.End, Until: co.Wait.Until, Next: later(co.Next, co.Wait.Next)}
	h.Resume(co.Site, co.LastEnd, w)
}

// handover is the site's timing as this process leaves it, for its
// check-in; zero times when the fetcher keeps none.
func (c *Crawler) handover(site string) (lastEnd, next time.Time) {
	if h, ok := c.Fetcher.(siteHandover); ok {
		return h.Handover(site)
	}
	return time.Time{}, time.Time{}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// siteCheckouts is what the frontier's checkouts of sites ask of the
// store (frontier.go).
type siteCheckouts interface {
	CheckOutSites(ctx context.Context, round string, sites []string) ([]store.Checkout, error)
}

// checkoutStore checks the frontier's sites out: Store, unless a test set
// checkouts.
func (c *Crawler) checkoutStore() siteCheckouts {
	if c.checkouts != nil {
		return c.checkouts
	}
	return c.Store
}
