package simweb

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// EventClock is simulated time for many goroutines at once, as a
// discrete-event simulation keeps it: time stands still while any
// goroutine the clock knows of is at work, and when every one of them is
// asleep it jumps to the earliest wake-up. So a thousand sites waiting out
// their gaps side by side take the simulated time of the longest wait, not
// the sum, and a simulated day of a concurrent crawl means what a real
// one would.
//
// The clock knows a goroutine from its Busy call (package crawl's frontier
// calls it for every site it starts, and for itself) until the returned
// func is called. A goroutine that sleeps without being known counts as
// asleep and never holds time back, which keeps the single-goroutine
// uses of Clock working unchanged.
//
// A known goroutine that blocks on something other than the clock (a
// channel another, sleeping, goroutine holds) would stop time for good;
// after a stall (a second of real time by default, SetStall) with no clock
// event the clock advances anyway,
// so such a wait costs a little accuracy, never a deadlock.
type EventClock struct {
	mu      sync.Mutex
	now     time.Time
	busy    int // known goroutines at work
	asleep  int // goroutines in Sleep
	wakeups wakeHeap
	events  uint64 // counts Sleep, wake-ups and Busy changes, for the stall watch
	stall   time.Duration
	stalls  int // advances the stall watch made
	stop    chan struct{}
	once    sync.Once
}

// NewEventClock starts simulated time at start. Close stops its stall
// watch.
func NewEventClock(start time.Time) *EventClock {
	c := &EventClock{now: start, stall: time.Second, stop: make(chan struct{})}
	go c.watch()
	return c
}

// SetStall sets how long the clock waits, in real time, for any event
// before it advances although a known goroutine is not asleep.
func (c *EventClock) SetStall(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stall = d
}

// Stalls counts the times the clock advanced for a stall rather than
// because every known goroutine slept.
func (c *EventClock) Stalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stalls
}

// Close stops the clock's stall watch; sleepers still wake as time moves.
func (c *EventClock) Close() { c.once.Do(func() { close(c.stop) }) }

// Now is the simulated time.
func (c *EventClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d, waking whoever is due by then.
func (c *EventClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.wakeDue()
}

// Busy counts the calling goroutine (or one about to start) as at work
// until done is called.
func (c *EventClock) Busy() (done func()) {
	c.mu.Lock()
	c.busy++
	c.events++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.busy--
			c.events++
			c.maybeAdvance()
		})
	}
}

// Await counts the calling known goroutine as asleep while it waits on
// something outside the clock that takes up to d of simulated time (a
// store write waiting for its group's commit): meanwhile the clock may
// move on by up to d, letting other sites work, as real time would; then
// it stands still again until done is called.
func (c *EventClock) Await(d time.Duration) (done func()) {
	w := c.fallAsleep(d)
	var once sync.Once
	return func() { once.Do(func() { c.leave(w) }) }
}

// fallAsleep counts the caller asleep until d from now, when w wakes.
func (c *EventClock) fallAsleep(d time.Duration) *wakeup {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &wakeup{at: c.now.Add(d), ch: make(chan struct{})}
	heap.Push(&c.wakeups, w)
	c.asleep++
	c.events++
	c.maybeAdvance()
	return w
}

// leave takes w out of the queue, and its sleeper out of the count, if it
// has not woken yet.
func (c *EventClock) leave(w *wakeup) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.index >= 0 {
		heap.Remove(&c.wakeups, w.index)
		c.asleep--
		c.events++
	}
}

// Sleep waits until the clock has moved d forward (or ctx ends).
func (c *EventClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	w := c.fallAsleep(d)
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		c.leave(w)
		return ctx.Err()
	}
}

// maybeAdvance jumps to the earliest wake-up when nobody known is at work.
// c.mu is held.
func (c *EventClock) maybeAdvance() {
	if c.asleep < c.busy || len(c.wakeups) == 0 {
		return
	}
	c.advanceToNext()
}

func (c *EventClock) advanceToNext() {
	if len(c.wakeups) == 0 {
		return
	}
	if at := c.wakeups[0].at; at.After(c.now) {
		c.now = at
	}
	c.wakeDue()
}

// wakeDue wakes every sleeper whose time has come. c.mu is held.
func (c *EventClock) wakeDue() {
	for len(c.wakeups) > 0 && !c.wakeups[0].at.After(c.now) {
		w := heap.Pop(&c.wakeups).(*wakeup)
		c.asleep--
		c.events++
		close(w.ch)
	}
}

// watch advances a clock on which nothing has happened for a stall while
// someone sleeps: a known goroutine is blocked on something else.
func (c *EventClock) watch() {
	var last uint64
	for {
		c.mu.Lock()
		stall := c.stall
		c.mu.Unlock()
		select {
		case <-c.stop:
			return
		case <-time.After(stall):
		}
		c.mu.Lock()
		if c.events == last && c.asleep > 0 {
			c.stalls++
			c.advanceToNext()
		}
		last = c.events
		c.mu.Unlock()
	}
}

type wakeup struct {
	at    time.Time
	ch    chan struct{}
	index int // in the heap; -1 once popped
}

type wakeHeap []*wakeup

func (h wakeHeap) Len() int           { return len(h) }
func (h wakeHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h wakeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *wakeHeap) Push(x any) {
	w := x.(*wakeup)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *wakeHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}
