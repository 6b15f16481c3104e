package fetch

import (
	"context"
	"sync"
	"time"
)

// Lease grants the right to send one request to a site. Acquire blocks until
// no other request to the site is in flight, the site's next-allowed time has
// passed, and at least floor has passed since the last request ended (the
// holder's own floor: a catalogue page's delay, the Crawl-delay of the origin
// it is about to ask). The in-process LocalLease is one implementation; a store can
// make it cluster-wide behind the same interface.
type Lease interface {
	Acquire(ctx context.Context, site string, floor time.Duration) (Slot, error)
}

// Slot is a held lease on one site.
type Slot interface {
	// Release gives the site back: end is when this request ended, and the
	// site may not be asked again before next.
	Release(end, next time.Time)
	// Abandon gives the site back unused, its timing as it was.
	Abandon()
}

// LocalLease is an in-process Lease: one one-slot channel per site, holding
// the site's timing while nobody uses it. Waiting is a channel receive and a
// Clock sleep, never a mutex held across a sleep, so it works under
// testing/synctest and with a simulated clock.
type LocalLease struct {
	clock Clock
	mu    sync.Mutex // guards sites; never held while waiting
	sites map[string]chan siteTimes
}

type siteTimes struct{ lastEnd, next time.Time }

// NewLocalLease returns an empty in-process lease keeper.
func NewLocalLease(clock Clock) *LocalLease {
	return &LocalLease{clock: clock, sites: make(map[string]chan siteTimes)}
}

func (l *LocalLease) slot(site string) chan siteTimes {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch, ok := l.sites[site]
	if !ok {
		ch = make(chan siteTimes, 1)
		ch <- siteTimes{}
		l.sites[site] = ch
	}
	return ch
}

// Acquire takes the site's slot, then waits out its next-allowed time while
// holding it, so that requests queue in arrival order behind one another.
func (l *LocalLease) Acquire(ctx context.Context, site string, floor time.Duration) (Slot, error) {
	ch := l.slot(site)
	var t siteTimes
	select {
	case t = <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	until := t.next
	if !t.lastEnd.IsZero() && t.lastEnd.Add(floor).After(until) {
		until = t.lastEnd.Add(floor)
	}
	if wait := until.Sub(l.clock.Now()); wait > 0 {
		if err := l.clock.Sleep(ctx, wait); err != nil {
			ch <- t
			return nil, err
		}
	}
	return &localSlot{ch: ch, times: t}, nil
}

// Sites is how many sites the lease keeper holds state for.
func (l *LocalLease) Sites() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sites)
}

type localSlot struct {
	ch    chan siteTimes
	times siteTimes // as acquired, for Abandon
	once  sync.Once
}

func (s *localSlot) Release(end, next time.Time) {
	s.once.Do(func() { s.ch <- siteTimes{lastEnd: end, next: next} })
}

func (s *localSlot) Abandon() {
	s.once.Do(func() { s.ch <- s.times })
}
