package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
)

// robotsStore keeps robots records and counts the reads.
type robotsStore struct {
	mu    sync.Mutex
	rows  map[string]store.RobotsRecord
	reads int
}

func (s *robotsStore) Robots(_ context.Context, origin string) (store.RobotsRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	r, ok := s.rows[origin]
	if !ok {
		return store.RobotsRecord{}, model.ErrNotFound
	}
	return r, nil
}

func (s *robotsStore) PutRobots(_ context.Context, r store.RobotsRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rows == nil {
		s.rows = make(map[string]store.RobotsRecord)
	}
	s.rows[r.Origin] = r
	return nil
}

// UpdateOriginStanding keeps nothing: the caches of these tests have no
// Agent, and so record no origin's standing.
func (*robotsStore) UpdateOriginStanding(context.Context, model.Origin) error { return nil }

func entry(i int) fetch.RobotsEntry {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := robots.Parse(fmt.Appendf(nil, "User-agent: *\nDisallow: /private%d\nCrawl-delay: %d\n", i, i))
	return fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, File: f, TTL: 24 * time.Hour},
		Checked: now, Expires: now.Add(24 * time.Hour), Last: &robots.Copy{File: f, FetchedAt: now}, ETag: fmt.Sprint(i)}
}

func origin(i int) string { return fmt.Sprintf("https://blog%d.example:443", i) }

// The memory lets go of the origin used longest ago, counting a Get as a
// use.
func TestRobotsMemoryLetsGoOfTheOldest(t *testing.T) {
	m := store.NewRobotsMemory(3)
	for i := range 3 {
		m.Put(context.Background(), origin(i), entry(i))
	}
	m.Get(context.Background(), origin(0)) // 1 is now the oldest
	m.Put(context.Background(), origin(3), entry(3))
	if m.Len() != 3 {
		t.Errorf("%d origins held, want 3", m.Len())
	}
	if _, ok := m.Get(context.Background(), origin(1)); ok {
		t.Error("origin 1, used longest ago, still held")
	}
	for _, i := range []int{0, 2, 3} {
		e, ok := m.Get(context.Background(), origin(i))
		if !ok || e.ETag != fmt.Sprint(i) {
			t.Errorf("origin %d: %v %q", i, ok, e.ETag)
		}
	}
	m.Put(context.Background(), origin(2), entry(20)) // a replacement, not one more
	if e, _ := m.Get(context.Background(), origin(2)); m.Len() != 3 || e.ETag != "20" {
		t.Errorf("%d origins, entry %q after a replacement", m.Len(), e.ETag)
	}
}

// Past DefaultRobotsMemory origins, the cache's memory stays full size and
// an origin it let go of is read back from the store, with the same
// verdict: never missing, so never asked of the network again.
func TestRobotsCacheBoundedReadsBackFromStore(t *testing.T) {
	st := &robotsStore{}
	c := store.NewRobotsCache(st, store.RobotsCacheOptions{})
	n := store.DefaultRobotsMemory + 100
	for i := range n {
		c.Put(context.Background(), origin(i), entry(i%50))
	}
	st.reads = 0
	for i := n - 10; i < n; i++ { // recent: answered from memory
		if _, ok := c.Get(context.Background(), origin(i)); !ok {
			t.Fatalf("origin %d missing", i)
		}
	}
	if st.reads != 0 {
		t.Errorf("%d store reads for origins in memory", st.reads)
	}
	e, ok := c.Get(context.Background(), origin(7)) // let go of long ago
	if !ok {
		t.Fatal("an origin let go of is missing: the fetcher would read robots.txt again")
	}
	if st.reads != 1 {
		t.Errorf("%d store reads, want 1", st.reads)
	}
	if d, _ := e.Verdict.For("corpusbot").CrawlDelay(); d != 7*time.Second || e.ETag != "7" {
		t.Errorf("read back: Crawl-delay %v, ETag %q", d, e.ETag)
	}
	if !e.Verdict.For("corpusbot").Decide("/private8").Allowed || e.Verdict.For("corpusbot").Decide("/private7").Allowed {
		t.Error("read back with other rules")
	}
	c.Get(context.Background(), origin(7))
	if st.reads != 1 {
		t.Errorf("%d store reads after a second Get, want it from memory", st.reads)
	}
}
