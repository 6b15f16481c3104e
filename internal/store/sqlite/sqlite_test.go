package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestSuite(t *testing.T) {
	storetest.RunSuite(t, func(t *testing.T) *store.DB {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.DB
	})
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AddSource(ctx, "https://a.example/", storetest.T0); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlite.Open(ctx, path) // migrations already applied: a no-op
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	db.EachSource(ctx, func(store.Source) error { n++; return nil })
	if n != 1 {
		t.Fatalf("%d sources after reopen", n)
	}
}

// Two stores on one file are two workers, as two processes are: the shared
// checkout code is checked on SQLite too (with names and a clock of the
// test's).
func TestCheckoutSuite(t *testing.T) {
	storetest.RunCheckoutSuite(t, func(t *testing.T) storetest.CheckoutPair {
		path := filepath.Join(t.TempDir(), "test.db")
		var mu sync.Mutex
		now := storetest.T0
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		var dbs [2]*sqlite.DB
		for i, name := range []string{"worker-a", "worker-b"} {
			db, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			db.SetCheckouts(name, storetest.CheckoutTTL, clock)
			dbs[i] = db
		}
		return storetest.CheckoutPair{A: dbs[0].DB, B: dbs[1].DB, Advance: func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }}
	})
}

// A worker's checkouts outlive their lifetime while it is open (renewed), and
// a clean Close hands them back at once.
func TestCheckoutRenewalAndRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for checkouts to be renewed")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	const ttl = 2500 * time.Millisecond // renewed every 833 ms: only a stall of over 1.6 s could lose it
	open := func(name string) *sqlite.DB {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetCheckouts(name, ttl, nil)
		return db
	}
	a, b := open("worker-a"), open("worker-b")
	sites := []string{"r.example", "s.example"}
	if got, _ := a.CheckOutSites(ctx, "round-a", sites); len(got) != 2 {
		t.Fatalf("A checked out %v, want both sites", got)
	}
	time.Sleep(2 * ttl)
	if got, _ := b.CheckOutSites(ctx, "round-b", sites); len(got) != 0 {
		t.Fatalf("B took %v, which A still holds (renewal failed)", got)
	}
	a.Close()
	if got, _ := b.CheckOutSites(ctx, "round-b", sites); len(got) != 2 {
		t.Fatalf("B took %v after A closed, want both sites", got)
	}
}

func TestSiteDataSuite(t *testing.T) {
	storetest.RunSiteDataSuite(t, func(t *testing.T) *store.DB {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.DB
	})
}

// Due work (sources, feeds, sitemaps, posts) is read, not checked out
// (the frontier checks out its site): asking for it commits nothing, and
// the same work is handed again until it is stored.
func TestDueWorkIsRead(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := storetest.T0
	src, _, err := db.AddSource(ctx, "https://sole.example/", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddFeed(ctx, store.Feed{URL: "https://sole.example/feed", SourceID: src.ID, State: "active"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddSitemap(ctx, store.Sitemap{URL: "https://sole.example/sitemap.xml", SourceID: src.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPosts(ctx, []store.NewPost{{URL: "https://sole.example/1", SourceID: src.ID}, {URL: "https://sole.example/2", SourceID: src.ID}}); err != nil {
		t.Fatal(err)
	}
	before := db.GroupStats()
	for range 2 { // the second time, the same batches again
		if got, err := db.SourcesToDiscover(ctx, now, 10); err != nil || len(got) != 1 {
			t.Fatalf("sources to discover: %d, %v", len(got), err)
		}
		if got, err := db.FeedsToRead(ctx, src.ID, now); err != nil || len(got) != 1 {
			t.Fatalf("feeds to read: %d, %v", len(got), err)
		}
		if got, err := db.SourceSitemapsDue(ctx, src.ID, now, now.Add(time.Hour)); err != nil || len(got) != 1 {
			t.Fatalf("sitemaps due: %d, %v", len(got), err)
		}
		if got, err := db.PostsDue(ctx, src.ID, now, 10); err != nil || len(got) != 2 {
			t.Fatalf("posts due: %d, %v", len(got), err)
		}
	}
	if after := db.GroupStats(); after.Writes != before.Writes {
		t.Errorf("handing out batches wrote %d times", after.Writes-before.Writes)
	}
}

// The writer checkpoints the WAL at WALCheckpointPages, not at SQLite's
// 1,000 pages, on every connection that may commit: the setting is per
// connection, and the pool opens its connections as it needs them.
func TestWriterCheckpointsAtWALCheckpointPages(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := db.Writer()
	var conns []*sql.Conn
	for range 2 { // the writer pool's size: both held at once are two connections
		c, err := w.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		var pages int
		if err := c.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if pages != sqlite.WALCheckpointPages {
			t.Errorf("writer connection %d: wal_autocheckpoint %d, want %d", i, pages, sqlite.WALCheckpointPages)
		}
		c.Close()
	}
}

// A process killed with kill -9 leaves its sites checked out; the next
// process on the file sees that it has ended and takes them up at once,
// counting their gaps from then, while a live process's checkouts stay.
func TestDeadProcessCheckoutsGivenBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skip("no process to end:", err)
	}
	host, _ := os.Hostname()
	for _, tc := range []struct {
		worker string
		free   bool
	}{
		{fmt.Sprintf("%s-%d-0badc0de", host, ended.Process.Pid), true},
		{fmt.Sprintf("%s-%d-0badc0de", host, os.Getpid()), false}, // alive: this test
		{fmt.Sprintf("elsewhere-%d-0badc0de", ended.Process.Pid), false},
		{"worker-a", false},
	} {
		a, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() }) // after the test: until then, as if killed
		a.SetCheckouts(tc.worker, 0, nil)
		site := tc.worker + ".example"
		if got, err := a.CheckOutSites(ctx, "round-a", []string{site}); err != nil || len(got) != 1 {
			t.Fatalf("%s: checked out %v, %v", tc.worker, got, err)
		}
		// Left checked out, as by kill -9: the store is dropped unclosed.
		before := time.Now()
		b, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.CheckOutSites(ctx, "round-b", []string{site})
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		if free := len(got) == 1; free != tc.free {
			t.Errorf("%s: the next process took its site: %v, want %v", tc.worker, free, tc.free)
		}
		if tc.free && got[0].LastEnd.Before(before) {
			t.Errorf("%s: a dead worker's site handed on with last end %v, want no earlier than its release (%v)", tc.worker, got[0].LastEnd, before)
		}
	}
}

func TestRecordSuite(t *testing.T) {
	storetest.RunRecordSuite(t, func(t *testing.T) *store.DB {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "x.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.DB
	})
}
