package fetch

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// The budget lets bodies in while they fit, in order of arrival, one
// larger than the whole budget alone, and forgets a waiter whose context
// ends.
func TestBodyBudgetOrderAndFit(t *testing.T) {
	ctx := context.Background()
	b := newBodyBudget(100)
	first, _ := b.take(ctx, 60)
	second, _ := b.take(ctx, 40)
	if b.used != 100 {
		t.Fatalf("used %d after 60 and 40, want 100", b.used)
	}
	// A waiter for 50, then one for 10: the second waits behind the first
	// even though it would fit sooner, so that large bodies are not
	// starved.
	got := make(chan int64, 2)
	go func() { s, _ := b.take(ctx, 50); got <- s.n.Load() }()
	waitFor(t, func() bool { return b.waiting.Load() == 1 })
	go func() { s, _ := b.take(ctx, 10); got <- s.n.Load() }()
	waitFor(t, func() bool { return b.waiting.Load() == 2 })
	second.release()
	select {
	case n := <-got:
		t.Fatalf("a take of %d went in with 60 of 100 held and 50 first in line", n)
	case <-time.After(50 * time.Millisecond):
	}
	first.release()
	first.release() // once only
	if a, c := <-got, <-got; a+c != 60 || b.used != 60 {
		t.Fatalf("takes of %d and %d, used %d; want 50 and 10, 60", a, c, b.used)
	}

	// Larger than the whole budget: taken alone, once the rest is back.
	b = newBodyBudget(100)
	small, _ := b.take(ctx, 10)
	big := make(chan *bodyShare)
	go func() { s, _ := b.take(ctx, 500); big <- s }()
	waitFor(t, func() bool { return b.waiting.Load() == 1 })
	small.release()
	if s := <-big; s.n.Load() != 100 || b.used != 100 {
		t.Fatalf("a body over the budget took %d, used %d; want the whole 100", s.n.Load(), b.used)
	}

	// A waiter whose context ends leaves the line, and the one behind it
	// goes in if it fits.
	b = newBodyBudget(100)
	held, _ := b.take(ctx, 70)
	cctx, cancel := context.WithCancel(ctx)
	failed := make(chan error)
	go func() { _, err := b.take(cctx, 50); failed <- err }()
	waitFor(t, func() bool { return b.waiting.Load() == 1 })
	after := make(chan *bodyShare)
	go func() { s, _ := b.take(ctx, 20); after <- s }()
	waitFor(t, func() bool { return b.waiting.Load() == 2 })
	cancel()
	if err := <-failed; err == nil {
		t.Fatal("a cancelled take succeeded")
	}
	if s := <-after; s == nil || b.used != 90 {
		t.Fatalf("after the cancelled waiter left, used %d, want 90", b.used)
	}
	held.release()
}

// fit counts a body as its buffer came to, and gives the share back when
// the body is collected if nobody released it.
func TestBodyShareFitAndCollected(t *testing.T) {
	b := newBodyBudget(1 << 20)
	s, _ := b.take(context.Background(), 1000)
	body := make([]byte, 0, 4000)
	s.fit(body)
	if b.used != 4000 {
		t.Fatalf("used %d after a 4000-byte body, want 4000", b.used)
	}
	body = nil
	_ = body
	waitFor(t, func() bool { runtime.GC(); return b.released.Load() > 0 })
	if b.used != 0 {
		t.Fatalf("used %d after the body was collected, want 0", b.used)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}
