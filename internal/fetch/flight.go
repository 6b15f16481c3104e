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
	m  map[string]chan struct{}
}

// do runs fn unless a call for key is already running, in which case it
// waits for that one to finish (or for ctx to end).
func (fl *flights) do(ctx context.Context, key string, fn func()) {
	fl.mu.Lock()
	if ch, ok := fl.m[key]; ok {
		fl.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		return
	}
	if fl.m == nil {
		fl.m = make(map[string]chan struct{})
	}
	ch := make(chan struct{})
	fl.m[key] = ch
	fl.mu.Unlock()
	defer func() {
		fl.mu.Lock()
		delete(fl.m, key)
		fl.mu.Unlock()
		close(ch)
	}()
	fn()
}
