package fetch_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/robots"
)

var bg = context.Background()

func robotsEntry(i int) fetch.RobotsEntry {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := robots.Parse(fmt.Appendf(nil, "User-agent: *\nDisallow: /private%d\nCrawl-delay: %d\n", i, i))
	return fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, File: f, TTL: 24 * time.Hour},
		Checked: now, Expires: now.Add(24 * time.Hour), Last: &robots.Copy{File: f, FetchedAt: now}, ETag: fmt.Sprint(i)}
}

func blogOrigin(i int) string { return fmt.Sprintf("https://blog%d.example:443", i) }

// The memory lets go of the origin used longest ago, counting a Get as a
// use; an origin let go of is read back from the store.
func TestRobotsCacheLetsGoOfTheOldest(t *testing.T) {
	st := newRobotsStore()
	c := fetch.NewRobotsCache(st, fetch.RobotsCacheOptions{Memory: 3})
	for i := range 3 {
		c.Put(bg, blogOrigin(i), robotsEntry(i))
	}
	c.Get(bg, blogOrigin(0)) // 1 is now the oldest
	c.Put(bg, blogOrigin(3), robotsEntry(3))
	if c.Held() != 3 {
		t.Errorf("%d origins held, want 3", c.Held())
	}
	for _, i := range []int{0, 2, 3} {
		e, ok := c.Get(bg, blogOrigin(i))
		if !ok || e.ETag != fmt.Sprint(i) {
			t.Errorf("origin %d: %v %q", i, ok, e.ETag)
		}
	}
	if st.readCount() != 0 {
		t.Errorf("%d store reads for origins held", st.readCount())
	}
	if e, ok := c.Get(bg, blogOrigin(1)); !ok || e.ETag != "1" || st.readCount() != 1 {
		t.Errorf("origin 1, let go of: %v %q after %d store reads, want it read back once", ok, e.ETag, st.readCount())
	}
	c.Put(bg, blogOrigin(1), robotsEntry(10)) // a replacement, not one more
	if e, _ := c.Get(bg, blogOrigin(1)); c.Held() != 3 || e.ETag != "10" {
		t.Errorf("%d origins, entry %q after a replacement", c.Held(), e.ETag)
	}
}

// Without a store the memory is the only copy: it keeps every origin.
func TestRobotsCacheWithoutStoreKeepsEveryOrigin(t *testing.T) {
	c := fetch.NewRobotsCache(nil, fetch.RobotsCacheOptions{})
	n := fetch.DefaultRobotsMemory + 100
	for i := range n {
		c.Put(bg, blogOrigin(i), robotsEntry(i%50))
	}
	if c.Held() != n {
		t.Errorf("%d origins held of %d put", c.Held(), n)
	}
	if _, ok := c.Get(bg, blogOrigin(7)); !ok {
		t.Error("the first origins put are gone")
	}
	if _, ok := c.Get(bg, "https://never.example:443"); ok {
		t.Error("an entry for an origin never put")
	}
}

// Past DefaultRobotsMemory origins, the cache's memory stays full size and
// an origin it let go of is read back from the store, with the same
// verdict: never missing, so never asked of the network again.
func TestRobotsCacheBoundedReadsBackFromStore(t *testing.T) {
	st := newRobotsStore()
	c := fetch.NewRobotsCache(st, fetch.RobotsCacheOptions{})
	n := fetch.DefaultRobotsMemory + 100
	for i := range n {
		c.Put(bg, blogOrigin(i), robotsEntry(i%50))
	}
	if c.Held() != fetch.DefaultRobotsMemory {
		t.Errorf("%d origins held, want %d", c.Held(), fetch.DefaultRobotsMemory)
	}
	for i := n - 10; i < n; i++ { // recent: answered from memory
		if _, ok := c.Get(bg, blogOrigin(i)); !ok {
			t.Fatalf("origin %d missing", i)
		}
	}
	if st.readCount() != 0 {
		t.Errorf("%d store reads for origins in memory", st.readCount())
	}
	e, ok := c.Get(bg, blogOrigin(7)) // let go of long ago
	if !ok {
		t.Fatal("an origin let go of is missing: the fetcher would read robots.txt again")
	}
	if st.readCount() != 1 {
		t.Errorf("%d store reads, want 1", st.readCount())
	}
	if d, _ := e.Verdict.For("corpusbot").CrawlDelay(); d != 7*time.Second || e.ETag != "7" {
		t.Errorf("read back: Crawl-delay %v, ETag %q", d, e.ETag)
	}
	if !e.Verdict.For("corpusbot").Decide("/private8").Allowed || e.Verdict.For("corpusbot").Decide("/private7").Allowed {
		t.Error("read back with other rules")
	}
	c.Get(bg, blogOrigin(7))
	if st.readCount() != 1 {
		t.Errorf("%d store reads after a second Get, want it from memory", st.readCount())
	}
}

// A file, no file and an empty file are read back as they were put, by a
// new process.
func TestRobotsCacheReadsBackWhatWasPut(t *testing.T) {
	checked := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	file := robots.Parse([]byte("User-agent: *\nDisallow: /private/\nSitemap: https://a.example/sm.xml\n"))
	tests := []struct {
		name  string
		entry fetch.RobotsEntry
	}{
		{"file", fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, File: file, TTL: 24 * time.Hour},
			Checked: checked, Expires: checked.Add(24 * time.Hour), Last: &robots.Copy{File: file, FetchedAt: checked}, ETag: `"r"`, LastModified: "lm"}},
		{"no file", fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateNoFile, TTL: time.Hour}, Checked: checked}},
		{"empty file", fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, File: robots.Parse(nil), TTL: time.Hour}, Checked: checked}},
		{"unreachable, last copy kept", fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateUnreachable, TTL: 6 * time.Hour},
			Checked: checked, Expires: checked.Add(6 * time.Hour), Last: &robots.Copy{File: file, FetchedAt: checked.Add(-time.Hour)}, UnreachableSince: checked}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newRobotsStore()
			fetch.NewRobotsCache(st, fetch.RobotsCacheOptions{}).Put(bg, "https://a.example:443", tc.entry)
			got, ok := fetch.NewRobotsCache(st, fetch.RobotsCacheOptions{}).Get(bg, "https://a.example:443")
			if !ok {
				t.Fatal("not found by a new process")
			}
			want := tc.entry
			if got.Verdict.State != want.Verdict.State || got.Verdict.TTL != want.Verdict.TTL || !got.Checked.Equal(want.Checked) ||
				!got.Expires.Equal(want.Expires) || !got.UnreachableSince.Equal(want.UnreachableSince) || got.ETag != want.ETag || got.LastModified != want.LastModified {
				t.Errorf("read back %+v, want %+v", got, want)
			}
			if (got.Verdict.File == nil) != (want.Verdict.File == nil) || (got.Last == nil) != (want.Last == nil) {
				t.Fatalf("files read back: file %v, last %v; want %v, %v", got.Verdict.File != nil, got.Last != nil, want.Verdict.File != nil, want.Last != nil)
			}
			if want.Verdict.File != nil && got.Verdict.File.String() != want.Verdict.File.String() {
				t.Errorf("file read back as %q, want %q", got.Verdict.File.String(), want.Verdict.File.String())
			}
			if want.Last != nil && (got.Last.File.String() != want.Last.File.String() || !got.Last.FetchedAt.Equal(want.Last.FetchedAt)) {
				t.Errorf("last copy read back as %+v, want %+v", got.Last, want.Last)
			}
		})
	}
}

// An expiry stored under a longer ROBOTS_TTL or ROBOTS_GUESS_TTL is cut to
// the check plus the setting now in force when a new process reads it, so
// a lower setting takes effect on the next run: the unreachable guess a
// first run stored for six hours lasts ten minutes under
// ROBOTS_GUESS_TTL=10m. An expiry already within the bound stands, and a
// cache that is not told the settings leaves every expiry as stored.
func TestRobotsCacheBoundsStoredExpiry(t *testing.T) {
	checked := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	stored := map[string]fetch.RobotsEntry{
		"https://file.example:443": {Verdict: robots.Verdict{State: robots.StateParsed, File: robots.Parse(nil), TTL: 24 * time.Hour},
			Checked: checked, Expires: checked.Add(24 * time.Hour)},
		"https://refused.example:443": {Verdict: robots.Verdict{State: robots.StateRefused, TTL: 24 * time.Hour},
			Checked: checked, Expires: checked.Add(24 * time.Hour)},
		"https://down.example:443": {Verdict: robots.Verdict{State: robots.StateUnreachable, TTL: 6 * time.Hour},
			Checked: checked, Expires: checked.Add(6 * time.Hour), UnreachableSince: checked},
		"https://nofile.example:443": {Verdict: robots.Verdict{State: robots.StateNoFile, TTL: 6 * time.Hour},
			Checked: checked, Expires: checked.Add(6 * time.Hour)},
		"https://soon.example:443": {Verdict: robots.Verdict{State: robots.StateUnreachable, TTL: 6 * time.Hour},
			Checked: checked, Expires: checked.Add(30 * time.Second), UnreachableSince: checked},
	}
	st := newRobotsStore()
	writer := fetch.NewRobotsCache(st, fetch.RobotsCacheOptions{})
	for o, e := range stored {
		writer.Put(bg, o, e)
	}
	tests := []struct {
		name string
		opts fetch.RobotsCacheOptions
		want map[string]time.Duration // expiry after checked
	}{
		{"lower settings", fetch.RobotsCacheOptions{Bound: true, TTL: time.Hour, GuessTTL: 10 * time.Minute}, map[string]time.Duration{
			"https://file.example:443": time.Hour, "https://refused.example:443": time.Hour,
			"https://down.example:443": 10 * time.Minute, "https://nofile.example:443": 10 * time.Minute,
			"https://soon.example:443": 30 * time.Second}},
		{"zero: asked again at once", fetch.RobotsCacheOptions{Bound: true}, map[string]time.Duration{
			"https://file.example:443": 0, "https://refused.example:443": 0, "https://down.example:443": 0,
			"https://nofile.example:443": 0, "https://soon.example:443": 0}},
		{"higher settings", fetch.RobotsCacheOptions{Bound: true, TTL: 48 * time.Hour, GuessTTL: 12 * time.Hour}, map[string]time.Duration{
			"https://file.example:443": 24 * time.Hour, "https://refused.example:443": 24 * time.Hour,
			"https://down.example:443": 6 * time.Hour, "https://nofile.example:443": 6 * time.Hour,
			"https://soon.example:443": 30 * time.Second}},
		{"not bound", fetch.RobotsCacheOptions{TTL: time.Hour, GuessTTL: 10 * time.Minute}, map[string]time.Duration{
			"https://file.example:443": 24 * time.Hour, "https://refused.example:443": 24 * time.Hour,
			"https://down.example:443": 6 * time.Hour, "https://nofile.example:443": 6 * time.Hour,
			"https://soon.example:443": 30 * time.Second}},
	}
	for _, tc := range tests {
		reader := fetch.NewRobotsCache(st, tc.opts) // a new process: nothing in memory
		for o, d := range tc.want {
			e, ok := reader.Get(bg, o)
			if !ok {
				t.Fatalf("%s: %s missing", tc.name, o)
			}
			if got := e.Expires.Sub(checked); got != d {
				t.Errorf("%s: %s expires %v after its check, want %v", tc.name, o, got, d)
			}
			if e.Verdict.TTL > stored[o].Verdict.TTL {
				t.Errorf("%s: %s TTL %v grew", tc.name, o, e.Verdict.TTL)
			}
			if e.Verdict.State != stored[o].Verdict.State || !e.Checked.Equal(checked) {
				t.Errorf("%s: %s read back as %s checked %v", tc.name, o, e.Verdict.State, e.Checked)
			}
		}
	}
}

// With an Agent, every entry put records its origin's standing: its state,
// its check, and whether the file blocks the agent from the whole site.
// Without one, the standing is left to the crawl.
func TestRobotsCacheRecordsStanding(t *testing.T) {
	checked := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		agent, file string
		state       robots.State
		wantBlocked bool
	}{
		{"blocks the agent", "corpusbot", "User-agent: corpusbot\nDisallow: /\n", robots.StateParsed, true},
		{"blocks another agent", "corpusbot", "User-agent: otherbot\nDisallow: /\n", robots.StateParsed, false},
		{"blocks a part", "corpusbot", "User-agent: *\nDisallow: /private/\n", robots.StateParsed, false},
		{"refused: no file served", "corpusbot", "", robots.StateRefused, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newRobotsStore()
			e := fetch.RobotsEntry{Verdict: robots.Verdict{State: tc.state, TTL: time.Hour}, Checked: checked, Expires: checked.Add(time.Hour)}
			if tc.file != "" {
				e.Verdict.File = robots.Parse([]byte(tc.file))
			}
			fetch.NewRobotsCache(st, fetch.RobotsCacheOptions{Agent: tc.agent}).Put(bg, "https://a.example:443", e)
			o, ok := st.standing["https://a.example:443"]
			if !ok || o.State != string(tc.state) || !o.Checked.Equal(checked) || o.Blocked != tc.wantBlocked {
				t.Errorf("standing %+v (recorded %v), want state %s, blocked %v", o, ok, tc.state, tc.wantBlocked)
			}
			fetch.NewRobotsCache(st, fetch.RobotsCacheOptions{}).Put(bg, "https://b.example:443", e)
			if o, ok := st.standing["https://b.example:443"]; ok {
				t.Errorf("standing recorded without an agent: %+v", o)
			}
		})
	}
}

// One worker of a cluster holds an origin's robots.txt read; another waits
// for its result instead of reading too; a worker that never answers
// (dead) lets the next worker read after the hold's TTL. A worker's memory
// answers only while its entry is fresh.
func TestRobotsCacheClusterHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, holds := newRobotsStore(), &robotsHolds{}
		cluster := fetch.RobotsCacheOptions{Clock: fetch.RealClock{}, Hold: fetch.RobotsHold{Holds: holds, TTL: 2 * time.Second, Poll: 5 * time.Millisecond}}
		a, b := fetch.NewRobotsCache(st, cluster), fetch.NewRobotsCache(st, cluster)
		const origin = "https://a.example:443"
		if _, ok := a.Get(bg, origin); ok { // a holds the read
			t.Fatal("entry before any read")
		}
		now := time.Now()
		e := fetch.RobotsEntry{Verdict: robots.Verdict{State: robots.StateParsed, TTL: time.Hour, File: robots.Parse([]byte("User-agent: *\nDisallow: /x\n"))},
			Checked: now, Expires: now.Add(time.Hour)}
		go func() {
			time.Sleep(100 * time.Millisecond)
			a.Put(bg, origin, e)
		}()
		begin := time.Now()
		got, ok := b.Get(bg, origin) // waits for a's read
		if !ok || !got.Checked.Equal(e.Checked) {
			t.Fatalf("b: %v %+v, want a's read", ok, got)
		}
		if d := time.Since(begin); d < 100*time.Millisecond {
			t.Fatalf("b did not wait for a's read (%v)", d)
		}
		synctest.Wait() // a's Put has returned
		if h, held := holds.row(origin); held {
			t.Errorf("a's hold outlived its Put: %+v", h)
		}

		// A second origin whose worker dies: b reads it itself after the TTL.
		const other = "https://b.example:443"
		a.Get(bg, other)
		begin = time.Now()
		if _, ok := b.Get(bg, other); ok {
			t.Fatal("entry from nowhere")
		}
		if d := time.Since(begin); d < 2*time.Second {
			t.Fatalf("b took over a live hold after %v", d)
		}
		if h, _ := holds.row(other); h.holder == "" || !h.expires.After(time.Now()) {
			t.Errorf("b holds no refresh of %s after the dead one's passed: %+v", other, h)
		}

		// A stale entry in a worker's memory is looked up in the store,
		// where another worker has put a fresh one.
		time.Sleep(2 * time.Hour)
		fresh := e
		fresh.Checked, fresh.Expires, fresh.ETag = time.Now(), time.Now().Add(time.Hour), "fresh"
		a.Put(bg, origin, fresh)
		if got, _ := b.Get(bg, origin); got.ETag != "fresh" {
			t.Errorf("b answered its stale memory: %+v", got)
		}
	})
}
