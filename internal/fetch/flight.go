package fetch

import (
	"context"
	"sync"
)

// flights runs one function per key at a time and lets concurrent callers of
// the same key wait for it instead of repeating it: two workers meeting a new
// origin ask its robots.txt once.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

// flight is one run of a function: done closes when it returns, with err
// set to what it returned.
type flight struct {
	done chan struct{}
	err  error
}

// do runs fn unless a call for key is already running, in which case it
// waits for that one to finish (or for ctx to end). It returns the error of
// the run it ran or waited for (nil when ctx ended first).
func (fl *flights) do(ctx context.Context, key string, fn func() error) error {
	fl.mu.Lock()
	if f, ok := fl.m[key]; ok {
		fl.mu.Unlock()
		select {
		case <-f.done:
			return f.err
		case <-ctx.Done():
			return nil
		}
	}
	if fl.m == nil {
		fl.m = make(map[string]*flight)
	}
	f := &flight{done: make(chan struct{})}
	fl.m[key] = f
	fl.mu.Unlock()
	defer func() {
		fl.mu.Lock()
		delete(fl.m, key)
		fl.mu.Unlock()
		close(f.done)
	}()
	f.err = fn()
	return f.err
}
