package fetch_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
)

// The lease under testing/synctest on the real clock: waiting is a channel
// receive and a timer, both durably blocking, so fake time runs.
func TestLocalLeaseSerialisesAndSpaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := fetch.NewLocalLease(fetch.RealClock{})
		ctx := context.Background()
		var mu sync.Mutex
		var starts, ends []time.Time
		inFlight := 0
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				s, err := l.Acquire(ctx, "blog.example", time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inFlight++
				if inFlight > 1 {
					t.Error("two holders at once")
				}
				starts = append(starts, time.Now())
				mu.Unlock()
				time.Sleep(300 * time.Millisecond) // the request
				mu.Lock()
				inFlight--
				end := time.Now()
				ends = append(ends, end)
				mu.Unlock()
				s.Release(end, end.Add(2*time.Second))
			})
		}
		wg.Wait()
		for i := 1; i < len(starts); i++ {
			if g := starts[i].Sub(ends[i-1]); g < 2*time.Second {
				t.Errorf("gap %v, want >= 2s", g)
			}
		}
		// Another site is not held up.
		s, err := l.Acquire(ctx, "other.example", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s.Release(time.Now(), time.Now())
	})
}

func TestLocalLeaseFloorAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := fetch.NewLocalLease(fetch.RealClock{})
		s, _ := l.Acquire(context.Background(), "a.example", 0)
		end := time.Now()
		s.Release(end, end.Add(time.Second))
		// The holder's floor (a catalogue page's 2s) beats next-allowed.
		s, _ = l.Acquire(context.Background(), "a.example", 2*time.Second)
		if g := time.Since(end); g < 2*time.Second {
			t.Errorf("waited %v, want the 2s floor", g)
		}
		// A cancelled wait gives the slot back untouched.
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := l.Acquire(ctx, "a.example", 0)
			done <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-done; err == nil {
			t.Error("cancelled Acquire succeeded")
		}
		s.Release(time.Now(), time.Now())
		s2, err := l.Acquire(context.Background(), "a.example", 0)
		if err != nil {
			t.Fatal(err)
		}
		s2.Release(time.Now(), time.Now())
		if l.Sites() != 1 {
			t.Errorf("%d sites", l.Sites())
		}
	})
}
