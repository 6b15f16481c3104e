package simweb

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Many known goroutines sleeping side by side take the simulated time of
// the longest, and each wakes exactly when it asked to.
func TestEventClockParallelSleeps(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewEventClock(t0)
	defer c.Close()
	var wg sync.WaitGroup
	woke := make([]time.Duration, 50)
	starting := c.Busy() // time stands still until every sleeper is known
	for i := range woke {
		done := c.Busy()
		wg.Go(func() {
			defer done()
			for range 3 { // three sleeps of i+1 seconds each
				if err := c.Sleep(context.Background(), time.Duration(i+1)*time.Second); err != nil {
					t.Error(err)
				}
			}
			woke[i] = c.Now().Sub(t0)
		})
	}
	starting()
	wg.Wait()
	for i, d := range woke {
		if want := time.Duration(3*(i+1)) * time.Second; d != want {
			t.Errorf("goroutine %d woke at +%v, want +%v", i, d, want)
		}
	}
	if got := c.Now().Sub(t0); got != 150*time.Second {
		t.Errorf("clock at +%v, want +150s (the longest, not the sum)", got)
	}
}

// A known goroutine at work holds time back: a sleeper does not wake
// until it sleeps too (or finishes).
func TestEventClockWaitsForWork(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewEventClock(t0)
	c.SetStall(time.Hour) // no stall rescue in this test
	defer c.Close()
	working := c.Busy()
	sleeper := c.Busy()
	woke := make(chan time.Time)
	go func() {
		defer sleeper()
		c.Sleep(context.Background(), time.Minute)
		woke <- c.Now()
	}()
	select {
	case <-woke:
		t.Fatal("the sleeper woke while another goroutine was at work")
	case <-time.After(50 * time.Millisecond):
	}
	working()
	if at := <-woke; at != t0.Add(time.Minute) {
		t.Fatalf("woke at %v", at)
	}
}

// A known goroutine blocked on something other than the clock does not
// stop time for good.
func TestEventClockStall(t *testing.T) {
	c := NewEventClock(time.Unix(0, 0))
	c.SetStall(10 * time.Millisecond)
	defer c.Close()
	blocked := c.Busy() // never sleeps, never finishes in time
	defer blocked()
	me := c.Busy()
	defer me()
	if err := c.Sleep(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if c.Now() != time.Unix(0, 0).Add(time.Hour) {
		t.Fatalf("now %v", c.Now())
	}
}

func TestEventClockCancel(t *testing.T) {
	c := NewEventClock(time.Unix(0, 0))
	c.SetStall(time.Hour)
	defer c.Close()
	other := c.Busy() // holds time still
	defer other()
	me := c.Busy()
	defer me()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if err := c.Sleep(ctx, time.Hour); err == nil {
		t.Fatal("a cancelled sleep returned nil")
	}
	if c.Now() != time.Unix(0, 0) {
		t.Fatalf("time moved for a cancelled sleep: %v", c.Now())
	}
}

// A known goroutine waiting on something outside the clock (Await) lets
// time move on by up to its bound, and no further until it is done.
func TestEventClockAwait(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewEventClock(t0)
	c.SetStall(time.Hour) // no stall rescue in this test
	defer c.Close()
	waiter := c.Busy()
	defer waiter()
	sleeper := c.Busy()
	woke := make(chan time.Time, 2)
	go func() {
		defer sleeper()
		for range 2 {
			c.Sleep(context.Background(), 3*time.Millisecond)
			woke <- c.Now()
		}
	}()
	// The waiter is at work: the sleeper cannot wake.
	select {
	case <-woke:
		t.Fatal("the sleeper woke while the waiter was at work")
	case <-time.After(50 * time.Millisecond):
	}
	done := c.Await(5 * time.Millisecond)
	// Its first sleep ends within the wait's bound; its second would not.
	if at := <-woke; at.Sub(t0) != 3*time.Millisecond {
		t.Errorf("the sleeper woke at +%v during the wait, want +3ms", at.Sub(t0))
	}
	select {
	case at := <-woke:
		t.Fatalf("the sleeper woke again at +%v, past the wait's bound", at.Sub(t0))
	case <-time.After(50 * time.Millisecond):
	}
	if got := c.Now().Sub(t0); got != 5*time.Millisecond {
		t.Errorf("clock at +%v once the wait's bound passed, want +5ms", got)
	}
	done()
	// Done, the waiter is at work again; once it finishes, time moves.
	select {
	case at := <-woke:
		t.Fatalf("the sleeper woke at +%v while the waiter was at work again", at.Sub(t0))
	case <-time.After(50 * time.Millisecond):
	}
	waiter()
	if at := <-woke; at.Sub(t0) != 6*time.Millisecond {
		t.Errorf("the sleeper woke at +%v after the wait, want +6ms", at.Sub(t0))
	}
}
