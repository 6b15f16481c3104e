package fetch

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// RefusalState is what the 403 refusal list keeps per site.
type RefusalState struct {
	Consecutive403 int       // 403 answers in a row
	Served         bool      // the site has ever answered a request with a success
	Refused        bool      // on the refusal list
	LastAsked      time.Time // when a listed site was last asked
}

// Refusals holds RefusalState per site. The logic is here (RefusalThreshold,
// mayAsk, after); the state belongs to the caller's store.
type Refusals interface {
	Get(ctx context.Context, site string) RefusalState
	Put(ctx context.Context, site string, s RefusalState)
}

// RefusalStatus is the answer that counts towards the refusal list: a site
// that forbids us, as opposed to one that fails.
const RefusalStatus = http.StatusForbidden

// RefusalThreshold is how many 403s in a row put a site that never served us
// on the refusal list.
const RefusalThreshold = 3

// mayAsk reports whether a request may be sent to a site in state s: a listed
// site is asked once per recheck period, to notice that it has changed its
// mind.
func (s RefusalState) mayAsk(now time.Time, recheck time.Duration) bool {
	return !s.Refused || now.Sub(s.LastAsked) >= recheck
}

// after is the state once a site has answered status (0: no answer, which
// changes nothing but the time of a recheck) at time now.
func (s RefusalState) after(status int, now time.Time) RefusalState {
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
		s = RefusalState{Served: true}
	case status != 0:
		s.Consecutive403 = 0
	}
	return s
}

// MemoryRefusals is an in-memory Refusals, safe for concurrent use: the
// default for tests and tools. It keeps every site whose state ever changed
// (every site that answered at all is marked Served), since it is the only
// copy; a crawl of many sites keeps the list in its store (store.Refusals).
type MemoryRefusals struct {
	mu sync.Mutex
	m  map[string]RefusalState
}

// NewMemoryRefusals returns an empty refusal list.
func NewMemoryRefusals() *MemoryRefusals { return &MemoryRefusals{m: make(map[string]RefusalState)} }

// Get returns the state of site.
func (r *MemoryRefusals) Get(ctx context.Context, site string) RefusalState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[site]
}

// Put stores the state of site.
func (r *MemoryRefusals) Put(ctx context.Context, site string, s RefusalState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[site] = s
}
