package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// A write run alone (a chunk of a long sitemap read) gets a transaction of
// its own between the batches, in its place in the queue: the writes queued
// before it are committed first, those after it wait for it, and its
// failure or panic rolls back its own work only.
func TestGroupCommitRunsAloneInOrder(t *testing.T) {
	d, _ := openGroupDB(t)
	ctx := context.Background()
	before := d.group.batches.Load()
	release := hold(d)
	errOwn := errors.New("alone fails")
	// What each alone write saw committed when it ran, through the reader
	// pool: x1 and x2 (queued before all of them), y1 (after a, before b).
	var mu sync.Mutex
	saw := map[string][2]bool{}
	alone := func(k string, after func(conn) error) func() error {
		return func() error {
			return d.txAlone(ctx, func(tx conn) error {
				mu.Lock()
				saw[k] = [2]bool{has(t, d, "x1") && has(t, d, "x2"), has(t, d, "y1")}
				mu.Unlock()
				if _, err := tx.ExecContext(ctx, `INSERT INTO kv(k, v) VALUES ($1, 1)`, k); err != nil {
					return err
				}
				return after(tx)
			})
		}
	}
	writes := []func() error{
		func() error { return put(ctx, d, "x1") },
		func() error { return put(ctx, d, "x2") },
		alone("a", func(conn) error { return nil }),
		func() error { return put(ctx, d, "y1") },
		alone("b", func(conn) error { return errOwn }),
		func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panicked: %v", p)
				}
			}()
			return alone("c", func(conn) error { panic("c panics") })()
		},
		func() error { return put(ctx, d, "y2") },
	}
	got := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Go(func() { got[i] = w() })
		waitQueued(t, d, i+1) // in this order
	}
	release()
	wg.Wait()
	for _, i := range []int{0, 1, 2, 3, 6} {
		if got[i] != nil {
			t.Errorf("write %d failed: %v", i, got[i])
		}
	}
	if !errors.Is(got[4], errOwn) {
		t.Errorf("failing alone write got %v, want its own error", got[4])
	}
	if got[5] == nil || got[5].Error() != "panicked: c panics" {
		t.Errorf("panicking alone write got %v, want its panic again", got[5])
	}
	for k, want := range map[string][2]bool{"a": {true, false}, "b": {true, true}, "c": {true, true}} {
		if saw[k] != want {
			t.Errorf("alone write %s saw x1 and x2, y1 committed: %v, want %v", k, saw[k], want)
		}
	}
	for k, want := range map[string]bool{"x1": true, "x2": true, "a": true, "y1": true, "b": false, "c": false, "y2": true} {
		if has(t, d, k) != want {
			t.Errorf("%s stored: %v, want %v", k, !want, want)
		}
	}
	// The held write; x1 and x2; a; y1; b; c; y2.
	if n := d.group.batches.Load() - before; n != 7 {
		t.Errorf("%d transactions, want 7", n)
	}
}
