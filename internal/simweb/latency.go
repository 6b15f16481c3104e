package simweb

import (
	"context"
	"hash/fnv"
	"net/http"
	"time"
)

// Latency delays every response by a time between Min and Max, as the
// network and a real server would: drawn uniformly from a hash of Seed,
// the host and the request URI, so that the same request is always as
// slow, whatever order concurrent requests arrive in. The delay is inside
// the request as the recorder sees it (between its Start and End).
type Latency struct {
	Min, Max time.Duration
	Seed     uint64
	// Sleep waits d of simulated time (an EventClock's Sleep: a server
	// goroutine asleep on it stands in for the client goroutine waiting on
	// the answer, so time moves on as it would); nil waits real time.
	Sleep func(ctx context.Context, d time.Duration) error
}

// WithLatency delays every response as l says.
func WithLatency(l Latency) Option { return func(w *Web) { w.latency = &l } }

// delay is the latency of one request.
func (l *Latency) delay(host, uri string) time.Duration {
	if l.Max <= l.Min {
		return l.Min
	}
	h := fnv.New64a()
	var seed [8]byte
	for i := range seed {
		seed[i] = byte(l.Seed >> (8 * i))
	}
	h.Write(seed[:])
	h.Write([]byte(host))
	h.Write([]byte{0})
	h.Write([]byte(uri))
	return l.Min + time.Duration(h.Sum64()%uint64(l.Max-l.Min+1))
}

// wait delays the request r to host; false when the client went away
// meanwhile.
func (l *Latency) wait(host string, r *http.Request) bool {
	d := l.delay(host, r.URL.RequestURI())
	if l.Sleep != nil {
		return l.Sleep(r.Context(), d) == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
