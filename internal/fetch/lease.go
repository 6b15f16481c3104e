package fetch

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	"corpus.blog/corpusbot/robots"
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

// MaxFloor is the longest floor the Fetcher ever asks of a lease: MIN_GAP
// and CATALOGUE_PAGE_DELAY are at most a day (package config), and so is a
// Crawl-delay (robots.MaxCrawlDelay).
const MaxFloor = robots.MaxCrawlDelay

// leaseSweepEvery is how often Acquire looks for idle sites to forget: often
// enough that the map holds little more than the sites in flight, seldom
// enough that the scan (tens of nanoseconds per site held) costs nothing.
const leaseSweepEvery = 10 * time.Second

// LocalLease is an in-process Lease: one one-slot channel per site, holding
// the site's timing while nobody uses it. Waiting is a channel receive and a
// Clock sleep, never a mutex held across a sleep, so it works under
// testing/synctest and with a simulated clock.
//
// Its memory follows the sites in flight, not every site ever asked. A site
// that nobody holds or waits for and whose next-allowed time has passed is
// forgotten by the next sweep (Acquire runs one every 10s of the Clock's
// time), all but the time its last request ended: that stays behind as 16
// bytes keyed by a hash of the site, for at least MaxFloor (or the longest
// floor ever asked, if longer), because a later request may ask a floor
// that no request before it asked (a catalogue page after feed reads, a
// sibling origin's Crawl-delay) and must still get its gap. A site asked
// again picks its last end back up, so no gap is ever shorter than it would
// have been had the site never been forgotten. Two sites whose hashes
// collide (about one pair in 10^7 among a million sites) share the later of
// their ends: a gap longer than needed, never shorter.
type LocalLease struct {
	clock Clock
	seed  maphash.Seed

	mu      sync.Mutex // guards everything below; never held while waiting
	sites   map[string]*leaseSite
	peak    int           // the most sites held since sites was last rebuilt
	swept   time.Time     // when idle sites were last looked for
	longest time.Duration // the longest floor ever asked
	// ends and oldEnds are the last ends of forgotten sites, by site hash
	// (UnixNano), in two generations: a new one starts once the current one
	// is a generation old and the oldest is dropped whole, so every end is
	// kept between one and two generations and dropping costs nothing.
	ends, oldEnds map[uint64]int64
	generation    time.Time // when ends was started
}

// leaseSite is one site held in memory.
type leaseSite struct {
	slot  chan siteTimes // holds the timing while nobody uses the site
	users int            // holders and waiters, counted under LocalLease.mu
}

type siteTimes struct{ lastEnd, next time.Time }

// NewLocalLease returns an empty in-process lease keeper.
func NewLocalLease(clock Clock) *LocalLease {
	return &LocalLease{clock: clock, seed: maphash.MakeSeed(), sites: make(map[string]*leaseSite)}
}

// enter counts one more user of site, creating its entry (with the last end
// a forgotten site left behind) if there is none, and sweeps now and then.
func (l *LocalLease) enter(site string, floor time.Duration) *leaseSite {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	l.longest = max(l.longest, floor)
	if now.Sub(l.swept) >= leaseSweepEvery || now.Before(l.swept) {
		l.sweep(now)
	}
	s, ok := l.sites[site]
	if !ok {
		s = &leaseSite{slot: make(chan siteTimes, 1)}
		var t siteTimes
		if end, ok := l.endOf(site); ok {
			t.lastEnd = end
		}
		s.slot <- t
		l.sites[site] = s
		l.peak = max(l.peak, len(l.sites))
	}
	s.users++
	return s
}

// leave counts one user of s less. A holder calls it after putting the
// timing back in the slot, so a site without users always has its timing
// there.
func (l *LocalLease) leave(s *leaseSite) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s.users--
}

// Acquire takes the site's slot, then waits out its next-allowed time while
// holding it, so that requests queue in arrival order behind one another.
func (l *LocalLease) Acquire(ctx context.Context, site string, floor time.Duration) (Slot, error) {
	s := l.enter(site, floor)
	var t siteTimes
	select {
	case t = <-s.slot:
	case <-ctx.Done():
		l.leave(s)
		return nil, ctx.Err()
	}
	until := t.next
	if !t.lastEnd.IsZero() && t.lastEnd.Add(floor).After(until) {
		until = t.lastEnd.Add(floor)
	}
	if wait := until.Sub(l.clock.Now()); wait > 0 {
		if TooLong(ctx, wait, floor) {
			s.slot <- t
			l.leave(s)
			return nil, &WaitError{Site: site, Until: until}
		}
		if err := l.clock.Sleep(ctx, wait); err != nil {
			s.slot <- t
			l.leave(s)
			return nil, err
		}
	}
	return &localSlot{l: l, site: s, times: t}, nil
}

// Restore gives site the timing an earlier process left (its stored
// wait), unless the site is already held here with a later one.
func (l *LocalLease) Restore(site string, lastEnd, next time.Time) {
	s := l.enter(site, 0)
	t := <-s.slot
	if lastEnd.After(t.lastEnd) {
		t.lastEnd = lastEnd
	}
	if next.After(t.next) {
		t.next = next
	}
	s.slot <- t
	l.leave(s)
}

// Sites is how many sites the lease keeper holds in full: those in use and
// those idle since the last sweep (the forgotten ones' last ends are not
// counted).
func (l *LocalLease) Sites() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sites)
}

// sweep forgets the sites that nobody uses and whose next-allowed time has
// passed, keeping their last ends, and drops a generation of last ends once
// no floor can reach past them. Called with l.mu held.
func (l *LocalLease) sweep(now time.Time) {
	l.swept = now
	keep := max(MaxFloor, l.longest)
	switch age := now.Sub(l.generation); {
	case age >= 2*keep || age < 0:
		l.ends, l.oldEnds, l.generation = nil, nil, now
	case age >= keep:
		// Every end in oldEnds was written before ends started, so more
		// than keep ago: none can matter any more.
		l.ends, l.oldEnds, l.generation = nil, l.ends, now
	}
	for site, s := range l.sites {
		if s.users > 0 {
			continue
		}
		t := <-s.slot // never blocks: an unused site's timing is in its slot
		if now.Before(t.next) {
			s.slot <- t
			continue
		}
		delete(l.sites, site)
		if !t.lastEnd.IsZero() && now.Before(t.lastEnd.Add(keep)) {
			l.keepEnd(site, t.lastEnd)
		}
	}
	// A map never gives its buckets back: once the sites held fall far
	// below the most ever held, copy them into a map of their own size.
	if len(l.sites) < l.peak/4 {
		m := make(map[string]*leaseSite, len(l.sites))
		for site, s := range l.sites {
			m[site] = s
		}
		l.sites, l.peak = m, len(m)
	}
}

func (l *LocalLease) keepEnd(site string, end time.Time) {
	h := maphash.String(l.seed, site)
	if l.ends == nil {
		l.ends = make(map[uint64]int64)
	}
	if e := end.UnixNano(); e > l.ends[h] { // a collision keeps the later end
		l.ends[h] = e
	}
}

// endOf is the last end a forgotten site left behind, if any.
func (l *LocalLease) endOf(site string) (time.Time, bool) {
	h := maphash.String(l.seed, site)
	e, ok := l.ends[h]
	if o, ok2 := l.oldEnds[h]; ok2 && o > e {
		e, ok = o, true
	}
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, e), true
}

type localSlot struct {
	l     *LocalLease
	site  *leaseSite
	times siteTimes // as acquired, for Abandon
	once  sync.Once
}

func (s *localSlot) Release(end, next time.Time) {
	s.once.Do(func() {
		s.site.slot <- siteTimes{lastEnd: end, next: next}
		s.l.leave(s.site)
	})
}

func (s *localSlot) Abandon() {
	s.once.Do(func() {
		s.site.slot <- s.times
		s.l.leave(s.site)
	})
}

// Times is site's timing as the lease keeps it: when its last request
// ended and its next-allowed time. A site in use right now (another
// request of this process holds it) answers the last end it left behind,
// if any.
func (l *LocalLease) Times(site string) (lastEnd, next time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.sites[site]; ok {
		select {
		case t := <-s.slot:
			s.slot <- t
			return t.lastEnd, t.next
		default:
		}
	}
	end, _ := l.endOf(site)
	return end, time.Time{}
}
