package fetch

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/model"
)

// RefusalStatus is the answer that counts towards the refusal list: a site
// that forbids us, as opposed to one that fails.
const RefusalStatus = http.StatusForbidden

// RefusalThreshold is how many 403s in a row put a site that never served us
// on the refusal list.
const RefusalThreshold = 3

// mayAsk reports whether a request may be sent to a site in state s: a listed
// site is asked once per recheck period, to notice that it has changed its
// mind.
func mayAsk(s model.RefusalState, now time.Time, recheck time.Duration) bool {
	return !s.Refused || now.Sub(s.LastAsked) >= recheck
}

// refusalAfter is state s once its site has answered status (0: no answer,
// which changes nothing but the time of a recheck) at time now.
func refusalAfter(s model.RefusalState, status int, now time.Time) model.RefusalState {
	if s.Refused {
		s.LastAsked = now // a recheck was spent, answered or not
	}
	switch {
	case status == RefusalStatus:
		s.Consecutive403++
		if !s.Refused && s.Consecutive403 >= RefusalThreshold && !s.Served {
			s.Refused = true
			s.LastAsked = now
		}
	case status >= 200 && status < 400:
		// One success clears the list, and a site that has served us is
		// never listed for a later run of 403s (it may be rate-limiting).
		s = model.RefusalState{Served: true}
	case status != 0:
		s.Consecutive403 = 0
	}
	return s
}

// RefusalStore is where the 403 refusal list outlives the process (a
// store.DB, in SQL alone): the list's policy, and the memory in front of
// it, are Refusals'.
type RefusalStore interface {
	// Refusal is the stored state of site; the zero state for a site
	// never stored.
	Refusal(ctx context.Context, site string) (model.RefusalState, error)
	// PutRefusal stores the state of site.
	PutRefusal(ctx context.Context, site string, s model.RefusalState) error
}

// RefusalMemory is how long a site's state read from a RefusalStore is
// believed before it is read again.
const RefusalMemory = time.Minute

// Refusals is the fetcher's 403 refusal list: a state per site, asked on
// every request (and almost always "not listed"). Over a RefusalStore it is
// a short memory in front: what this process writes it knows at once (the
// memory is written through); what another worker of a cluster writes is
// seen within RefusalMemory, which the list's own pace (three 403s in a
// row, a recheck a week) makes harmless. Without a store it is the only
// copy and keeps every site whose state ever changed. A failed read
// answers "not refused" (the fetcher then asks and learns again), a failed
// write is logged. Safe for concurrent use.
type Refusals struct {
	store RefusalStore // nil: the memory is the only copy
	log   *slog.Logger
	now   func() time.Time

	mu    sync.Mutex
	mem   map[string]rememberedRefusal
	peak  int       // size at the last sweep
	swept time.Time // when the last sweep ran
}

type rememberedRefusal struct {
	state model.RefusalState
	read  time.Time
}

// NewRefusals is the refusal list over st (nil: in memory only), whose
// minutes are those of now (the fetcher's clock, so that a crawl on a
// simulated clock forgets as a real one would); log may be nil.
func NewRefusals(st RefusalStore, now func() time.Time, log *slog.Logger) *Refusals {
	return &Refusals{store: st, log: logging.OrDefault(log), now: now, mem: map[string]rememberedRefusal{}}
}

// Get is the state of site.
func (r *Refusals) Get(ctx context.Context, site string) model.RefusalState {
	now := r.now()
	r.mu.Lock()
	m, ok := r.mem[site]
	r.mu.Unlock()
	if r.store == nil || ok && now.Sub(m.read) < RefusalMemory {
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

// Put sets the state of site.
func (r *Refusals) Put(ctx context.Context, site string, s model.RefusalState) {
	r.remember(site, s, r.now())
	if r.store == nil {
		return
	}
	if err := r.store.PutRefusal(ctx, site, s); err != nil {
		r.log.Warn("refusal list write failed", "site", site, "err", err)
	}
}

// remember keeps a site's state. In front of a store, it drops those read
// longer ago than RefusalMemory whenever the memory has doubled since it
// was last swept or a sweep is RefusalMemory old: memory follows the sites
// asked in the last minute, not every site, and a crawl that has gone
// quiet lets go of what it held at its next request.
func (r *Refusals) remember(site string, s model.RefusalState, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mem[site] = rememberedRefusal{s, now}
	if r.store == nil || len(r.mem) < max(2*r.peak, 1024) && now.Sub(r.swept) < RefusalMemory {
		return
	}
	r.swept = now
	for k, m := range r.mem {
		if now.Sub(m.read) >= RefusalMemory {
			delete(r.mem, k)
		}
	}
	fresh := make(map[string]rememberedRefusal, len(r.mem)) // maps never shrink: copy
	for k, m := range r.mem {
		fresh[k] = m
	}
	r.mem, r.peak = fresh, len(fresh)
}
