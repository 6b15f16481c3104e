package store

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/logging"
)

// Refusals is fetch.Refusals kept in a Store, so that the 403 refusal list
// survives restarts, with a short memory in front: the fetcher asks it on
// every request, and almost every answer is "not listed". What this
// process writes it knows at once (the memory is written through); what
// another worker of a cluster writes is seen within RefusalMemory, which
// the list's own pace (three 403s in a row, a recheck a week) makes
// harmless. fetch.Refusals has no error return: a failed read answers "not
// refused" (the fetcher then asks and learns again), a failed write is
// logged.
type Refusals struct {
	store refusalStore
	log   *slog.Logger
	now   func() time.Time

	mu    sync.Mutex
	mem   map[string]remembered
	peak  int       // size at the last sweep
	swept time.Time // when the last sweep ran
}

type remembered struct {
	state fetch.RefusalState
	read  time.Time
}

// RefusalMemory is how long a site's standing read from the store is
// believed before it is read again.
const RefusalMemory = time.Minute

// refusalStore is what a Refusals asks of the store.
type refusalStore interface {
	Refusal(ctx context.Context, site string) (fetch.RefusalState, error)
	PutRefusal(ctx context.Context, site string, s fetch.RefusalState) error
}

// NewRefusals is the refusal list of st; log may be nil.
func NewRefusals(st refusalStore, log *slog.Logger) *Refusals {
	return &Refusals{store: st, log: logging.OrDefault(log), now: time.Now, mem: map[string]remembered{}}
}

// UseClock makes the memory's minutes those of now (the fetcher's clock),
// so that a crawl on a simulated clock forgets as a real one would.
func (r *Refusals) UseClock(now func() time.Time) *Refusals {
	r.now = now
	return r
}

var _ fetch.Refusals = (*Refusals)(nil)

// Get implements fetch.Refusals.
func (r *Refusals) Get(ctx context.Context, site string) fetch.RefusalState {
	now := r.now()
	r.mu.Lock()
	m, ok := r.mem[site]
	r.mu.Unlock()
	if ok && now.Sub(m.read) < RefusalMemory {
		return m.state
	}
	s, err := r.store.Refusal(ctx, site)
	if err != nil {
		r.log.Warn("refusal list read failed", "site", site, "err", err)
		return s
	}
	r.remember(site, s, now)
	return s
}

// Put implements fetch.Refusals.
func (r *Refusals) Put(ctx context.Context, site string, s fetch.RefusalState) {
	r.remember(site, s, r.now())
	if err := r.store.PutRefusal(ctx, site, s); err != nil {
		r.log.Warn("refusal list write failed", "site", site, "err", err)
	}
}

// remember keeps a site's standing, dropping those read longer ago than
// RefusalMemory whenever the memory has doubled since it was last swept or
// a sweep is RefusalMemory old: memory follows the sites asked in the last
// minute, not every site, and a crawl that has gone quiet lets go of what
// it held at its next request.
func (r *Refusals) remember(site string, s fetch.RefusalState, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mem[site] = remembered{s, now}
	if len(r.mem) < max(2*r.peak, 1024) && now.Sub(r.swept) < RefusalMemory {
		return
	}
	r.swept = now
	for k, m := range r.mem {
		if now.Sub(m.read) >= RefusalMemory {
			delete(r.mem, k)
		}
	}
	fresh := make(map[string]remembered, len(r.mem)) // maps never shrink: copy
	for k, m := range r.mem {
		fresh[k] = m
	}
	r.mem, r.peak = fresh, len(fresh)
}
