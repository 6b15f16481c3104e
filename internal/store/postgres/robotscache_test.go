package postgres_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/robots"
)

// One worker holds an origin's robots.txt read; another waits for its
// result instead of reading too; a worker that never answers (dead) lets
// the next worker read after HoldTTL.
func TestRobotsCacheClaims(t *testing.T) {
	dsn := testDSN(t)
	a := postgres.NewRobotsCache(open(t, dsn), fetch.RealClock{}, store.RobotsCacheOptions{})
	b := postgres.NewRobotsCache(open(t, dsn), fetch.RealClock{}, store.RobotsCacheOptions{})
	// A hold long beside the 100 ms a's read takes, so that a loaded
	// machine does not see b give up waiting first.
	a.HoldTTL, b.HoldTTL = 2*time.Second, 2*time.Second
	b.Poll = 5 * time.Millisecond
	const origin = "https://a.example:443"
	if _, ok := a.Get(context.Background(), origin); ok { // a holds the read
		t.Fatal("entry before any read")
	}
	now := time.Now()
	e := fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, TTL: time.Hour, File: robots.Parse([]byte("User-agent: *\nDisallow: /x\n"))},
		Checked: now, Expires: now.Add(time.Hour)}
	go func() {
		time.Sleep(100 * time.Millisecond)
		a.Put(context.Background(), origin, e)
	}()
	begin := time.Now()
	got, ok := b.Get(context.Background(), origin) // waits for a's read
	if !ok || !got.Checked.Equal(e.Checked) {
		t.Fatalf("b: %v %+v", ok, got)
	}
	if d := time.Since(begin); d < 50*time.Millisecond {
		t.Fatalf("b did not wait for a's read (%v)", d)
	}
	// A second origin whose worker dies: b reads it itself after HoldTTL.
	const other = "https://b.example:443"
	a.Get(context.Background(), other)
	begin = time.Now()
	if _, ok := b.Get(context.Background(), other); ok {
		t.Fatal("entry from nowhere")
	}
	if d := time.Since(begin); d < 1900*time.Millisecond {
		t.Fatalf("b took over a live hold after %v", d)
	}
}

// A worker started with a lower ROBOTS_TTL reads the cluster's entries cut
// to it: the entry stored for a day by a worker of the old setting is
// asked again after the hour the new one says (issue 18).
func TestRobotsCacheBoundsStoredExpiry(t *testing.T) {
	dsn := testDSN(t)
	old := postgres.NewRobotsCache(open(t, dsn), fetch.RealClock{}, store.RobotsCacheOptions{Bound: true, TTL: 24 * time.Hour, GuessTTL: 6 * time.Hour})
	const origin = "https://bound.example:443"
	now := time.Now()
	old.Put(context.Background(), origin, fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, TTL: 24 * time.Hour, File: robots.Parse(nil)},
		Checked: now, Expires: now.Add(24 * time.Hour)})
	lower := postgres.NewRobotsCache(open(t, dsn), fetch.RealClock{}, store.RobotsCacheOptions{Bound: true, TTL: time.Hour, GuessTTL: 10 * time.Minute})
	e, ok := lower.Get(context.Background(), origin)
	if !ok || e.Expires.Sub(e.Checked) != time.Hour {
		t.Fatalf("read under ROBOTS_TTL=1h: %v, expires %v after its check, want 1h", ok, e.Expires.Sub(e.Checked))
	}
	if e, _ := old.Get(context.Background(), origin); e.Expires.Sub(e.Checked) != 24*time.Hour {
		t.Errorf("the old worker's own entry changed: %v", e.Expires.Sub(e.Checked))
	}
}
