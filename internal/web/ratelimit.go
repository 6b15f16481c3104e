package web

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// limiter is a token bucket per client: Burst requests at once, then one
// per Every. Buckets are keyed by client address (an IPv6 client by its /64,
// since one host commonly holds a whole /64). Memory is bounded by max keys:
// when full, buckets that have refilled completely are dropped (they carry
// no information), and if none has, the table starts afresh — a flood of
// distinct addresses then costs a few extra allowed requests, never memory.
type limiter struct {
	mu      sync.Mutex
	burst   float64
	every   time.Duration
	now     func() time.Time
	max     int
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(l RateLimit, now func() time.Time, max int) *limiter {
	return &limiter{burst: float64(l.Burst), every: l.Every, now: now, max: max, buckets: map[string]*bucket{}}
}

// allow takes a token for key, or says how long until one is due.
func (l *limiter) allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.max {
			l.sweep(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) * float64(l.every))
	return false, wait
}

func (l *limiter) refill(b *bucket, now time.Time) {
	if el := now.Sub(b.at); el > 0 {
		b.tokens = math.Min(l.burst, b.tokens+float64(el)/float64(l.every))
		b.at = now
	}
}

func (l *limiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		l.refill(b, now)
		if b.tokens >= l.burst {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= l.max {
		l.buckets = map[string]*bucket{}
	}
}

// clientKey is the rate-limit key of a request: the client's address as
// Options.Proxies has it — the peer, or, behind a trusted reverse proxy,
// the address it forwarded. Headers from anyone else are not trusted: any
// client can write them.
func (s *Server) clientKey(r *http.Request) string {
	a := s.opt.Proxies.ClientAddr(r)
	if !a.IsValid() {
		return r.RemoteAddr
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// limited rate-limits a handler of POSTs.
func (s *Server) limited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, wait := s.limiter.allow(s.clientKey(r))
		if !ok {
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
			s.fail(w, r, http.StatusTooManyRequests, "Too many requests",
				"This address has sent several forms in a short time. Wait "+strconv.Itoa(max(secs, 1))+" seconds and try again.")
			return
		}
		h(w, r)
	}
}
