package postgres_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/robots"
	"corpus.blog/corpusbot/internal/store/postgres"
)

// One worker claims an origin's robots.txt read; another waits for its
// result instead of reading too; a claimer that never answers (dead) lets
// the next worker read after ClaimTTL.
func TestRobotsCacheClaims(t *testing.T) {
	dsn := testDSN(t)
	a := postgres.NewRobotsCache(open(t, dsn), fetch.RealClock{}, nil)
	b := postgres.NewRobotsCache(open(t, dsn), fetch.RealClock{}, nil)
	a.ClaimTTL, b.ClaimTTL = 300*time.Millisecond, 300*time.Millisecond
	b.Poll = 5 * time.Millisecond
	const origin = "https://a.example:443"
	if _, ok := a.Get(context.Background(), origin); ok { // a claims the read
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
	// A second origin whose claimer dies: b reads it itself after ClaimTTL.
	const other = "https://b.example:443"
	a.Get(context.Background(), other)
	begin = time.Now()
	if _, ok := b.Get(context.Background(), other); ok {
		t.Fatal("entry from nowhere")
	}
	if d := time.Since(begin); d < 250*time.Millisecond {
		t.Fatalf("b took over a live claim after %v", d)
	}
}
