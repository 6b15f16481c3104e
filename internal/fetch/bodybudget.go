package fetch

import (
	"container/list"
	"context"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"corpus.blog/corpusbot/internal/model"
)

// DefaultBodyBudget is Options.BodyBudget when none is given: room for a
// few hundred real pages (50–500 KB of HTML, about 120 KB typically) read
// and waiting for their parse at once, which keeps two cores busy with
// extraction, where a crawler of thousands of sites at once otherwise
// reads every homepage of its first minutes before it parses one.
const DefaultBodyBudget = 64 << 20

// unknownBodyGuess is what a body of undeclared length (compressed or
// chunked) is counted as until it has been read: a typical page.
const unknownBodyGuess = 256 << 10

// bodyBudget bounds the bytes of response bodies the fetcher's callers
// hold at once, across every site: a body's share is taken before it is
// read (its declared length, or unknownBodyGuess), adjusted to what it
// came to once read, and given back when the caller releases the Result
// (Result.Release) or, failing that, when the body is garbage collected.
// Waiters are served in order; a body larger than the whole budget is
// read alone.
type bodyBudget struct {
	size    int64
	mu      sync.Mutex
	used    int64
	waiters list.List // of *budgetWaiter, in arrival order
	// released counts the shares given back, and waiting the bodies
	// waiting for one, for nudge.
	released atomic.Uint64
	waiting  atomic.Int64
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

// nudgeEvery is how long waiters wait with no share given back before a
// garbage collection is forced: the shares of bodies their callers
// dropped without a Release come back only when a collection finds them,
// and a crawler whose every goroutine waits for one allocates nothing
// that would start it.
const nudgeEvery = 250 * time.Millisecond

func newBodyBudget(size int64) *bodyBudget {
	if size <= 0 {
		return nil // unbounded
	}
	return &bodyBudget{size: size}
}

// take waits until n bytes fit and takes them (n is capped at the whole
// budget); a nil budget takes nothing.
func (b *bodyBudget) take(ctx context.Context, n int64) (*bodyShare, error) {
	if b == nil {
		return nil, nil
	}
	n = min(max(n, 1), b.size)
	b.mu.Lock()
	if b.waiters.Len() == 0 && b.fits(n) {
		b.used += n
		b.mu.Unlock()
		return b.share(n), nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	el := b.waiters.PushBack(w)
	b.mu.Unlock()
	if b.waiting.Add(1) == 1 {
		go b.nudge()
	}
	defer b.waiting.Add(-1)
	select {
	case <-w.ready:
		return b.share(n), nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: given back below
			b.mu.Unlock()
			b.give(n)
		default:
			b.waiters.Remove(el)
			b.grant() // the next ones may fit now that this one is gone
			b.mu.Unlock()
		}
		return nil, ctx.Err()
	}
}

// fits says whether n more bytes fit; a body always fits an empty
// budget. Called with mu held.
func (b *bodyBudget) fits(n int64) bool { return b.used == 0 || b.used+n <= b.size }

// grant wakes the waiters at the head of the line that fit. Called with
// mu held.
func (b *bodyBudget) grant() {
	for {
		el := b.waiters.Front()
		if el == nil {
			return
		}
		w := el.Value.(*budgetWaiter)
		if !b.fits(w.n) {
			return
		}
		b.used += w.n
		b.waiters.Remove(el)
		close(w.ready)
	}
}

// grow counts n more bytes (a body longer than its share), without
// waiting: the body is read already.
func (b *bodyBudget) grow(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// give returns n bytes and wakes whom they let in.
func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.grant()
	b.mu.Unlock()
	b.released.Add(1)
}

// nudge forces a garbage collection whenever bodies have waited nudgeEvery
// with no share given back; it ends when none waits.
func (b *bodyBudget) nudge() {
	last := b.released.Load()
	for {
		time.Sleep(nudgeEvery)
		if b.waiting.Load() == 0 {
			return
		}
		if now := b.released.Load(); now != last {
			last = now
			continue
		}
		runtime.GC()
	}
}

// bodyShare is the part of the budget one body holds.
type bodyShare struct {
	budget *bodyBudget
	n      atomic.Int64
	waited time.Duration // before it was had
}

func (b *bodyBudget) share(n int64) *bodyShare {
	s := &bodyShare{budget: b}
	s.n.Store(n)
	return s
}

// wait is how long the share was waited for; 0 for nil.
func (s *bodyShare) wait() time.Duration {
	if s == nil {
		return 0
	}
	return s.waited
}

// fit adjusts the share to the body as read (its buffer's capacity) and
// ties its return to the body's collection, in case the caller drops the
// Result without releasing it.
func (s *bodyShare) fit(body []byte) {
	if s == nil {
		return
	}
	held, want := s.n.Load(), int64(cap(body))
	switch {
	case want > held:
		s.budget.grow(want - held)
	case want < held:
		s.budget.give(held - want)
	}
	s.n.Store(want)
	if want > 0 {
		runtime.AddCleanup(unsafe.SliceData(body[:1]), (*bodyShare).release, s)
	}
}

// release gives the share back, once.
func (s *bodyShare) release() {
	if s == nil {
		return
	}
	if n := s.n.Swap(0); n > 0 {
		s.budget.give(n)
	}
}

// bodyShare takes the room a's response body needs in the body budget
// before it is read: its declared length when it has one (and it is not
// encoded), else unknownBodyGuess, no more than the purpose's limit. nil
// (nothing to give back) without a budget, and for what is not counted:
// robots.txt, a streamed body, a response whose body is not read.
func (f *Fetcher) bodyShare(ctx context.Context, resp *http.Response, a *attempt) (*bodyShare, error) {
	if f.bodies == nil || a.stream != nil || a.purpose == model.PurposeRobots {
		return nil, nil
	}
	limit := f.bodyLimit(a.purpose)
	n := int64(unknownBodyGuess)
	if enc := resp.Header.Get("Content-Encoding"); resp.ContentLength >= 0 && (enc == "" || strings.EqualFold(enc, "identity")) {
		n = resp.ContentLength
	}
	if n > limit {
		return nil, nil // refused unread (OutcomeTooLarge), or read to its limit by a sitemap's stream
	}
	began := f.clock.Now()
	s, err := f.bodies.take(ctx, n)
	if s != nil {
		s.waited = f.clock.Now().Sub(began)
	}
	return s, err
}
