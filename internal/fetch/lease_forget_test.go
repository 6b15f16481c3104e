package fetch_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
)

// use takes site's lease with floor and gives it back at once, the site
// askable again after next; it returns when the request ended.
func use(t *testing.T, l *fetch.LocalLease, site string, floor, next time.Duration) time.Time {
	t.Helper()
	s, err := l.Acquire(context.Background(), site, floor)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	s.Release(end, end.Add(next))
	return end
}

// Idle sites leave the map at the next sweep; their last ends leave too once
// no floor can reach past them.
func TestLocalLeaseForgetsIdleSites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := fetch.NewLocalLease(fetch.RealClock{})
		for i := range 100 {
			use(t, l, fmt.Sprintf("site%d.example", i), time.Second, time.Second)
		}
		if n := l.Sites(); n != 100 {
			t.Fatalf("%d sites held, want 100", n)
		}
		time.Sleep(11 * time.Second) // idle past every next-allowed time, and a sweep is due
		use(t, l, "other.example", time.Second, time.Second)
		if n := l.Sites(); n != 1 {
			t.Errorf("%d sites held after idleness, want only the one just asked", n)
		}
		if n := l.ForgottenEnds(); n != 100 {
			t.Errorf("%d last ends kept, want 100", n)
		}
		// Two generations of MaxFloor later, no floor reaches past any of them.
		time.Sleep(2 * fetch.MaxFloor)
		use(t, l, "third.example", time.Second, time.Second)
		if n := l.ForgottenEnds(); n > 1 { // other.example's, forgotten in this sweep
			t.Errorf("%d last ends kept after %v, want at most 1", n, 2*fetch.MaxFloor)
		}
		if n := l.Sites(); n != 1 {
			t.Errorf("%d sites held, want 1", n)
		}
	})
}

// A site is kept while someone holds or waits for it, or while its
// next-allowed time is ahead.
func TestLocalLeaseKeepsSitesInUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := fetch.NewLocalLease(fetch.RealClock{})
		ctx := context.Background()
		held, err := l.Acquire(ctx, "held.example", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		waited := make(chan fetch.Slot)
		go func() {
			s, err := l.Acquire(ctx, "held.example", time.Second)
			if err != nil {
				t.Error(err)
			}
			waited <- s
		}()
		use(t, l, "later.example", time.Second, time.Hour) // next-allowed in an hour
		synctest.Wait()
		time.Sleep(time.Minute)
		use(t, l, "other.example", time.Second, time.Second) // sweeps
		if n := l.Sites(); n != 3 {
			t.Errorf("%d sites held, want held, later and other", n)
		}
		end := time.Now()
		held.Release(end, end.Add(time.Second))
		s := <-waited
		if g := time.Since(end); g < time.Second {
			t.Errorf("waiter went %v after the release, want the 1s floor", g)
		}
		s.Release(time.Now(), time.Now().Add(time.Second))
		time.Sleep(time.Hour)
		use(t, l, "other.example", time.Second, time.Second)
		if n := l.Sites(); n != 1 {
			t.Errorf("%d sites held once all are idle, want 1", n)
		}
	})
}

// A forgotten site asked again gets its full gap, even with a floor longer
// than any asked of it before (a catalogue page after feeds, a Crawl-delay
// just read).
func TestLocalLeaseForgottenSiteKeepsItsGap(t *testing.T) {
	for _, floor := range []time.Duration{2 * time.Second, 7 * time.Second, 20 * time.Hour} {
		t.Run(floor.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := fetch.NewLocalLease(fetch.RealClock{})
				use(t, l, "first.example", time.Second, time.Second) // the first sweep
				time.Sleep(9 * time.Second)
				end := use(t, l, "blog.example", time.Second, time.Second)
				time.Sleep(1500 * time.Millisecond)
				use(t, l, "other.example", time.Second, time.Second) // sweeps: blog.example goes
				if n := l.Sites(); n != 1 {
					t.Fatalf("%d sites held, want blog.example forgotten", n)
				}
				s, err := l.Acquire(context.Background(), "blog.example", floor)
				if err != nil {
					t.Fatal(err)
				}
				if g := time.Since(end); g < floor {
					t.Errorf("asked %v after the last request ended, want the %v floor", g, floor)
				}
				s.Release(time.Now(), time.Now())
			})
		})
	}
}

// Abandoned and cancelled acquisitions leave the site idle, to be forgotten.
func TestLocalLeaseForgetsAfterAbandonAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := fetch.NewLocalLease(fetch.RealClock{})
		s, err := l.Acquire(context.Background(), "a.example", 0)
		if err != nil {
			t.Fatal(err)
		}
		s.Abandon()
		end := use(t, l, "b.example", time.Second, time.Minute)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := l.Acquire(ctx, "b.example", 0) // waits for the next-allowed time
			done <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-done; err == nil {
			t.Fatal("cancelled Acquire succeeded")
		}
		time.Sleep(time.Minute - time.Since(end))
		use(t, l, "c.example", time.Second, time.Second)
		if n := l.Sites(); n != 1 {
			t.Errorf("%d sites held, want 1", n)
		}
	})
}
