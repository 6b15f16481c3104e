package fetch

import (
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// A site passes between processes (two `run --once` on one SQLite file, a
// restart, the workers of a cluster) through the store's site checkouts:
// the process that gives a site back stores its Handover, and the one that
// takes it up next gives it to Resume before its first request, so that no
// gap is shortened by a second process or a restart.

// Handover is what this process knows of site that whoever takes it up
// next must honour: when its last request ended and the soonest its next
// may start (a back-off or a Retry-After included). Zero times when the
// process knows nothing of the site, or its lease keeps them elsewhere (a
// cluster's lease keeps them in the database).
func (f *Fetcher) Handover(site string) (lastEnd, next time.Time) {
	if h, ok := f.lease.(interface {
		Times(site string) (lastEnd, next time.Time)
	}); ok {
		return h.Times(site)
	}
	return time.Time{}, time.Time{}
}

// Resume gives the fetcher what is known of site from beyond this process
// as it takes the site up: the end of its last request, and its stored wait
// (back-off and Retry-After, w.Site being site; a zero w when there is
// none). Whatever later the process knows already stays.
func (f *Fetcher) Resume(site string, lastEnd time.Time, w model.SiteWait) {
	now := f.clock.Now()
	if w.Gap != 0 || !w.Until.IsZero() {
		b := backoff{gap: w.Gap, end: w.End, until: w.Until}
		if !b.rested(now) {
			if cur := f.backoffs.get(site, now); !cur.end.After(b.end) {
				if cur.until.After(b.until) {
					b.until = cur.until
				}
				f.backoffs.put(site, b, now)
			}
			f.stored.set(site, true) // a healthy answer deletes it
		}
		if w.End.After(lastEnd) {
			lastEnd = w.End
		}
	}
	if r, ok := f.lease.(leaseRestorer); ok && (!lastEnd.IsZero() || !w.Next.IsZero()) {
		r.Restore(site, lastEnd, w.Next)
	}
}
