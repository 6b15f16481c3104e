package main

import (
	"net/http"
	"sync"
)

// flaky answers its first times requests with fault and every later one
// with healthy: a transient fault that heals, counted per URL, whatever the
// day. heal, when set, runs once, as the last fault is answered (a healed
// robots.txt must go back to being served as the host's robots.txt, which
// the server-side checker reads).
type flaky struct {
	mu      sync.Mutex
	left    int
	fault   http.Handler
	healthy http.Handler
	heal    func()
}

func newFlaky(times int, fault, healthy http.Handler, heal func()) *flaky {
	return &flaky{left: times, fault: fault, healthy: healthy, heal: heal}
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	faulty := f.left > 0
	if faulty {
		f.left--
	}
	healNow := faulty && f.left == 0 && f.heal != nil
	f.mu.Unlock()
	if !faulty {
		f.healthy.ServeHTTP(w, r)
		return
	}
	if healNow {
		// Deferred: simweb.Reset ends the handler with a panic
		// (http.ErrAbortHandler) and the fault still counts as answered.
		defer f.heal()
	}
	f.fault.ServeHTTP(w, r)
}

// withoutQuery serves next only when the request has no query string: a
// route registered for a path (a feed at /feed/) must not answer
// /feed/?paged=2 with page one again, or a catalogue walk would read the
// same page up to CATALOGUE_MAX_PAGES times. Routes registered with their
// query (/?feed=rss2) are matched whole by simweb before the path.
func withoutQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// publishedFrom answers 404 until the scenario reaches day, then next.
func publishedFrom(day int, today func() int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if today() < day {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
