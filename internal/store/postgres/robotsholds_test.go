package postgres_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/robots"
)

// A hold on an origin's refresh is one holder's until it expires or is
// released: another holder is refused while it lives, the holder may take
// it again (extending it), and once it expires or is released the next
// holder takes it.
func TestHoldRobotsRefresh(t *testing.T) {
	db := open(t, testDSN(t))
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const origin = "https://held.example:443"
	steps := []struct {
		name   string
		holder string
		at     time.Duration // after now
		want   bool
	}{
		{"first holder", "a", 0, true},
		{"another, while it lives", "b", time.Second, false},
		{"the holder again", "a", 2 * time.Second, true},
		{"another, before the extended expiry", "b", 31 * time.Second, false},
		{"another, once it expired", "b", 32 * time.Second, true},
		{"the first, now held by b", "a", 33 * time.Second, false},
	}
	for _, s := range steps {
		at := now.Add(s.at)
		got, err := db.HoldRobotsRefresh(ctx, origin, s.holder, at, at.Add(30*time.Second))
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got != s.want {
			t.Errorf("%s: held %v, want %v", s.name, got, s.want)
		}
	}
	if err := db.ReleaseRobotsRefresh(ctx, origin, "a"); err != nil { // not a's: changes nothing
		t.Fatal(err)
	}
	if held, _ := db.HoldRobotsRefresh(ctx, origin, "a", now.Add(34*time.Second), now.Add(64*time.Second)); held {
		t.Error("a's release ended b's hold")
	}
	if err := db.ReleaseRobotsRefresh(ctx, origin, "b"); err != nil {
		t.Fatal(err)
	}
	if held, _ := db.HoldRobotsRefresh(ctx, origin, "a", now.Add(35*time.Second), now.Add(65*time.Second)); !held {
		t.Error("released, but a cannot hold it")
	}
}

// Two workers over one database: one holds an origin's robots.txt read,
// the other waits for its result instead of reading too; a worker that
// never answers (dead) lets the next worker read after the hold's TTL.
func TestRobotsCacheClusterHold(t *testing.T) {
	dsn := testDSN(t)
	worker := func() *fetch.RobotsCache {
		db := open(t, dsn)
		// A hold long beside the 100 ms a's read takes, so that a loaded
		// machine does not see b give up waiting first.
		return fetch.NewRobotsCache(db, fetch.RobotsCacheOptions{Hold: fetch.RobotsHold{Holds: db, TTL: 2 * time.Second, Poll: 5 * time.Millisecond}})
	}
	a, b := worker(), worker()
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
	// A second origin whose worker dies: b reads it itself after the TTL.
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
// asked again after the hour the new one says.
func TestRobotsCacheBoundsStoredExpiry(t *testing.T) {
	dsn := testDSN(t)
	worker := func(ttl, guess time.Duration) *fetch.RobotsCache {
		db := open(t, dsn)
		return fetch.NewRobotsCache(db, fetch.RobotsCacheOptions{Bound: true, TTL: ttl, GuessTTL: guess, Hold: fetch.RobotsHold{Holds: db}})
	}
	old := worker(24*time.Hour, 6*time.Hour)
	const origin = "https://bound.example:443"
	now := time.Now()
	old.Put(context.Background(), origin, fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, TTL: 24 * time.Hour, File: robots.Parse(nil)},
		Checked: now, Expires: now.Add(24 * time.Hour)})
	lower := worker(time.Hour, 10*time.Minute)
	e, ok := lower.Get(context.Background(), origin)
	if !ok || e.Expires.Sub(e.Checked) != time.Hour {
		t.Fatalf("read under ROBOTS_TTL=1h: %v, expires %v after its check, want 1h", ok, e.Expires.Sub(e.Checked))
	}
	if e, _ := old.Get(context.Background(), origin); e.Expires.Sub(e.Checked) != 24*time.Hour {
		t.Errorf("the old worker's own entry changed: %v", e.Expires.Sub(e.Checked))
	}
}
