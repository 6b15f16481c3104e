package simweb

import (
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Faults that heal: what the retry tests need of a web whose answers say
// "try later".

// Flaky answers its first times requests with fault and every later one
// with healthy: a transient fault that heals.
func Flaky(times int, fault, healthy http.Handler) http.Handler {
	var mu sync.Mutex
	left := times
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		faulty := left > 0
		if faulty {
			left--
		}
		mu.Unlock()
		if faulty {
			fault.ServeHTTP(w, r)
			return
		}
		healthy.ServeHTTP(w, r)
	})
}

// FailDNS makes the next times lookups of name fail as a DNS server that
// cannot answer fails: a temporary error, not "no such host".
func (w *Web) FailDNS(name string, times int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dnsFaults == nil {
		w.dnsFaults = make(map[string]int)
	}
	w.dnsFaults[strings.ToLower(name)] += times
}

// dnsFault reports (and counts down) a lookup of name that must fail.
// w.mu is held.
func (w *Web) dnsFault(name string) error {
	if w.dnsFaults[name] <= 0 {
		return nil
	}
	w.dnsFaults[name]--
	return &net.DNSError{Err: "server misbehaving", Name: name, IsTemporary: true}
}

// Chaos answers a share rate of all requests, on every host, with one of
// faults chosen at random (seeded, so a run can be repeated), instead of
// what the host would have answered: a web where transient faults are
// daily events. Chaos(0, …) ends it.
func (w *Web) Chaos(rate float64, seed uint64, faults ...http.Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if rate <= 0 || len(faults) == 0 {
		w.chaos = nil
		return
	}
	w.chaos = &chaos{rate: rate, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), faults: faults}
}

type chaos struct {
	mu     sync.Mutex
	rate   float64
	rnd    *rand.Rand
	faults []http.Handler
}

// pick is the fault for one request, or nil.
func (c *chaos) pick() http.Handler {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rnd.Float64() >= c.rate {
		return nil
	}
	return c.faults[c.rnd.IntN(len(c.faults))]
}
