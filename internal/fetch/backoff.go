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

// backoffs holds the back-off of every site.
type backoffs struct {
	mu sync.Mutex
	m  map[string]backoff
}

func (bs *backoffs) get(site string) backoff {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return bs.m[site]
}

func (bs *backoffs) put(site string, b backoff) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b == (backoff{}) {
		delete(bs.m, site) // keep memory for sites in trouble only
		return
	}
	if bs.m == nil {
		bs.m = make(map[string]backoff)
	}
	bs.m[site] = b
}
