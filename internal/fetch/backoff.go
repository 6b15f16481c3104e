package fetch

import (
	"net/http"
	"sync"
	"time"
)

// MaxBackoff is the widest gap consecutive errors can open.
const MaxBackoff = time.Hour

// backoff is one site's widening of its gap. It is only touched by the
// holder of the site's lease.
type backoff struct {
	gap   time.Duration // added pause, on top of MIN_GAP
	until time.Time     // Retry-After: not before this
	end   time.Time     // end of the answer that set gap
}

// backoffRest is how long past the end of its widened gap a site must have
// been left alone, its Retry-After passed too, for its back-off to start
// afresh.
//
// Doubling exists to find, within the hour MaxBackoff allows, a pace the
// site can bear: errors that come close together keep doubling it (an
// error less than an hour after the widened gap ended still finds it, and
// doubles it up to the one-hour cap). A site that has then rested longer
// than the widest gap the rules ever open has had more rest than any
// back-off would have given it, and is met as a site never seen: its next
// error opens the first step again, its next success goes on at MIN_GAP. The rule holds whether the state is still in memory or not
// (backoffs.get applies it), so the fetcher can forget a site's back-off
// once it applies and change nothing: memory follows the sites in trouble
// now, not every site that ever was.
const backoffRest = MaxBackoff

// rested reports whether the site has rested long enough at now for its
// back-off to start afresh (see backoffRest). A gap of zero with its
// Retry-After passed is the state of a site never seen, and rests at once.
func (b backoff) rested(now time.Time) bool {
	if now.Before(b.until) {
		return false
	}
	return b.gap == 0 || !now.Before(b.end.Add(b.gap+backoffRest))
}

// answer describes one finished exchange for the back-off.
type answer struct {
	status   int           // 0 when there was no response
	failed   bool          // transport failure or a server error
	header   http.Header   // for Retry-After
	duration time.Duration // start to end of the exchange
	end      time.Time
}

// update widens or narrows the gap after a and returns the new state.
// minGap is the floor errors double from; slowAfter and slowFactor define a
// slow response.
func (b backoff) update(a answer, minGap, slowAfter time.Duration, slowFactor int) backoff {
	b.end = a.end
	if a.status == http.StatusTooManyRequests || a.status == http.StatusServiceUnavailable {
		if w, ok := ParseRetryAfter(a.header.Get("Retry-After"), a.end); ok {
			b.until = a.end.Add(w)
		}
	}
	switch {
	case a.failed:
		// Consecutive errors double the gap, from MIN_GAP (or a second when
		// MIN_GAP is tiny) up to an hour.
		b.gap = min(max(2*b.gap, 2*minGap, time.Second), MaxBackoff)
	case slowAfter > 0 && a.duration >= slowAfter:
		b.gap = min(max(b.gap, time.Duration(slowFactor)*a.duration), MaxBackoff)
	default:
		// A success narrows the gap again: halved, and dropped once it is no
		// wider than MIN_GAP.
		b.gap /= 2
		if b.gap <= minGap {
			b.gap = 0
		}
	}
	return b
}

// next is when the site may be asked again after a, with floor the largest
// of MIN_GAP and the Crawl-delay in force.
func (b backoff) next(end time.Time, floor time.Duration) time.Time {
	n := end.Add(max(floor, b.gap))
	if b.until.After(n) {
		n = b.until
	}
	return n
}

// backoffSweepEvery is how often put looks for sites that have rested.
const backoffSweepEvery = time.Minute

// backoffs holds the back-off of the sites in trouble: a site whose state is
// that of a site never seen, or that has rested (backoff.rested), has no
// entry.
type backoffs struct {
	mu    sync.Mutex
	m     map[string]backoff
	peak  int       // the most entries since m was last rebuilt
	swept time.Time // when rested sites were last dropped
}

// get is the back-off of site at now: the zero state once it has rested.
func (bs *backoffs) get(site string, now time.Time) backoff {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, ok := bs.m[site]
	if !ok || b.rested(now) {
		return backoff{}
	}
	return b
}

// put stores the back-off of site, and now and then drops the entries of
// the sites that have rested.
func (bs *backoffs) put(site string, b backoff, now time.Time) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if now.Sub(bs.swept) >= backoffSweepEvery || now.Before(bs.swept) {
		bs.sweep(now)
	}
	if b.rested(now) {
		delete(bs.m, site) // keep memory for sites in trouble only
		return
	}
	if bs.m == nil {
		bs.m = make(map[string]backoff)
	}
	bs.m[site] = b
	bs.peak = max(bs.peak, len(bs.m))
}

// sweep drops the entries of rested sites; called with bs.mu held.
func (bs *backoffs) sweep(now time.Time) {
	bs.swept = now
	for site, b := range bs.m {
		if b.rested(now) {
			delete(bs.m, site)
		}
	}
	if len(bs.m) < bs.peak/4 { // a map never shrinks: copy the few left
		m := make(map[string]backoff, len(bs.m))
		for site, b := range bs.m {
			m[site] = b
		}
		bs.m, bs.peak = m, len(m)
	}
}

// len is how many sites have a back-off in memory.
func (bs *backoffs) len() int {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return len(bs.m)
}
