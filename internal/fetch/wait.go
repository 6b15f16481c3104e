package fetch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Waits a run cannot afford. A site that asks for a long wait (a back-off
// grown by its errors, a Retry-After of hours) must not hold the work of
// everything else: the caller sets a horizon on its context
// (WithWaitHorizon), and a lease whose wait for the site would be longer
// gives the site back at once with a *WaitError naming when it may be
// asked again. No request is sent and nothing is recorded of the site:
// the caller leaves its work for later, with that time stored (the
// fetcher's Waits), and goes on with other sites.

// WaitError is a lease's answer when the site's next permitted request is
// further off than the caller's horizon.
type WaitError struct {
	Site  string
	Until time.Time // the site's next permitted request
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("site %s may not be asked before %s", e.Site, e.Until.UTC().Format(time.RFC3339))
}

// WaitUntil reports the time a *WaitError in err's chain names.
func WaitUntil(err error) (time.Time, bool) {
	var w *WaitError
	if errors.As(err, &w) {
		return w.Until, true
	}
	return time.Time{}, false
}

type horizonKey struct{}

// WithWaitHorizon returns a context under which a lease waits at most
// horizon for a site (longer only for its own floor, up to
// MaxWaitedFloor: see TooLong), and answers a *WaitError otherwise.
func WithWaitHorizon(ctx context.Context, horizon time.Duration) context.Context {
	return context.WithValue(ctx, horizonKey{}, horizon)
}

// MaxWaitedFloor is the longest a floor (MIN_GAP, a Crawl-delay, the
// catalogue delay) is waited out under a horizon: a site asking a minute
// between requests is crawled at its pace inside a run, one asking an hour
// (robots.txt allows up to a day) is visited again when its time comes.
const MaxWaitedFloor = 2 * time.Minute

// TooLong reports whether a lease must answer a *WaitError rather than
// wait: wait exceeds both the horizon of ctx and the request's own floor
// (the floor counting up to MaxWaitedFloor). Without a horizon, every wait
// is waited.
func TooLong(ctx context.Context, wait, floor time.Duration) bool {
	h, ok := ctx.Value(horizonKey{}).(time.Duration)
	return ok && wait > max(h, min(floor, MaxWaitedFloor))
}

// Waits keeps the waits sites asked for (back-off, Retry-After) beyond
// the process, so that a restart, a crash or the next `run --once` honours
// them. Only sites in trouble have one: the fetcher saves a site's wait
// when an answer widens or keeps its back-off and deletes it (a zero Gap
// and Until) once the site is back to normal, so a healthy crawl writes
// nothing.
type Waits interface {
	// LoadWaits returns the stored waits, first deleting those whose next
	// permitted request and Retry-After both fall before forgetBefore (the
	// fetcher passes now less storedWaitRest).
	LoadWaits(ctx context.Context, forgetBefore time.Time) ([]model.SiteWait, error)
	// SaveWait stores w, or deletes the site's wait when w has no Gap and
	// no Until.
	SaveWait(ctx context.Context, w model.SiteWait) error
}

// leaseRestorer is a Lease that can be told a site's timing kept from an
// earlier process (LocalLease; a store-backed lease keeps its own).
type leaseRestorer interface {
	Restore(site string, lastEnd, next time.Time)
}

// storedWaitRest is how long after its next permitted request a stored
// wait is still worth loading: a back-off is forgotten once its site has
// rested backoffRest past its widened gap, and no gap is wider than
// MaxBackoff.
const storedWaitRest = backoffRest + MaxBackoff

// restoreWaits loads the stored waits into the back-offs and the lease,
// once, before the first request.
func (f *Fetcher) restoreWaits(ctx context.Context) {
	if f.waits == nil {
		return
	}
	f.waitsOnce.Do(func() {
		now := f.clock.Now()
		ws, err := f.waits.LoadWaits(context.WithoutCancel(ctx), now.Add(-storedWaitRest))
		if err != nil {
			f.log.Warn("stored site waits not loaded: back-off starts afresh", "err", err)
			return
		}
		r, _ := f.lease.(leaseRestorer)
		for _, w := range ws {
			f.stored.set(w.Site, true)
			b := backoff{gap: w.Gap, end: w.End, until: w.Until}
			if b.rested(now) {
				continue
			}
			f.backoffs.put(w.Site, b, now)
			if r != nil {
				r.Restore(w.Site, w.End, w.Next)
			}
		}
		if len(ws) > 0 {
			f.log.Info("site waits restored", "sites", len(ws))
		}
	})
}

// storedWaits are the sites whose wait this process knows to be stored:
// few (the sites in trouble), so that a healthy site's answers write
// nothing and a site back to normal has its wait deleted.
type storedWaits struct {
	mu sync.Mutex
	m  map[string]bool
}

// set records whether site's wait is stored and reports whether it was.
func (s *storedWaits) set(site string, stored bool) (was bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	was = s.m[site]
	if stored {
		if s.m == nil {
			s.m = map[string]bool{}
		}
		s.m[site] = true
	} else {
		delete(s.m, site)
	}
	return was
}

func (s *storedWaits) has(site string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[site]
}

// saveWait stores site's back-off b after an answer while the site is in
// trouble, and deletes its stored wait once it no longer is.
func (f *Fetcher) saveWait(ctx context.Context, site string, b backoff, next, now time.Time) {
	if f.waits == nil {
		return
	}
	w := model.SiteWait{Site: site}
	if !b.rested(now) {
		w = model.SiteWait{Site: site, Gap: b.gap, End: b.end, Until: b.until, Next: next}
	} else if !f.stored.has(site) {
		return // a healthy site stays unwritten
	}
	f.putWait(ctx, w)
}

// putWait stores w (a deletion when it has no Gap and no Until).
func (f *Fetcher) putWait(ctx context.Context, w model.SiteWait) {
	if err := f.waits.SaveWait(context.WithoutCancel(ctx), w); err != nil {
		f.log.Warn("site wait not stored", "site", w.Site, "err", err)
		return
	}
	f.stored.set(w.Site, w.Gap != 0 || !w.Until.IsZero())
}

// deferred stores the wait of a site given back unasked (a WaitError), so
// that the frontier leaves it out until then, whatever made the wait: a
// back-off, a Retry-After, or a floor (a Crawl-delay) beyond the horizon,
// which the back-off alone would not record. The wait joins the site's
// back-off as a "not before", which it is.
func (f *Fetcher) deferred(ctx context.Context, site string, until time.Time) {
	now := f.clock.Now()
	b := f.backoffs.get(site, now)
	if until.After(b.until) {
		b.until = until
	}
	f.backoffs.put(site, b, now)
	if f.waits == nil {
		return
	}
	f.putWait(ctx, model.SiteWait{Site: site, Gap: b.gap, End: b.end, Until: b.until, Next: until})
}
