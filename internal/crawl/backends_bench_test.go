package crawl_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/postgres/pgtest"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// BenchmarkCrawlBackends runs the same simulated crawl on each backend:
// 20 blogs of 3 feed pages × 8 posts (480 posts): day 1 discovers, polls,
// walks the catalogues and fetches every page; day 2, a day later, re-reads
// every feed and finds nothing changed. On simulated time, so what is
// measured is the crawler and its store, not the politeness gaps; the
// PostgreSQL figures include a round trip to the server per query (on
// loopback here).
//
//	go test -run '^$' -bench CrawlBackends ./internal/crawl
func BenchmarkCrawlBackends(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		benchCrawl(b, func(b *testing.B) *store.DB {
			db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "crawl.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db.DB
		})
	})
	b.Run("postgres", func(b *testing.B) {
		benchCrawl(b, func(b *testing.B) *store.DB {
			db, err := postgres.Open(context.Background(), pgtest.DSN(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db.DB
		})
	})
}

func benchCrawl(b *testing.B, newStore func(*testing.B) *store.DB) {
	const sites, pages, perPage = 20, 3, 8
	ctx := context.Background()
	var day1, day2 time.Duration
	var reqs1, reqs2 int
	for b.Loop() {
		b.StopTimer()
		w := newWorldOn(b, newStore(b))
		// One site at a time: parallel sites would share the simulated
		// clock, and each one's sleeps would stretch the others' responses
		// into "slow" ones, which widen gaps and make the runs differ.
		w.c.Concurrency = 1
		blogFarm(w.web, sites, pages, perPage)
		for s := range sites {
			if _, _, err := w.db.AddSource(ctx, "http://"+clusterHost(s)+"/", w.clock.Now()); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		t0 := time.Now()
		if err := w.c.Once(ctx); err != nil {
			b.Fatal(err)
		}
		day1 += time.Since(t0)
		b.StopTimer()
		reqs1 += len(w.web.Requests())
		w.web.Reset()
		w.clock.Advance(25 * time.Hour)
		b.StartTimer()
		t0 = time.Now()
		if err := w.c.Once(ctx); err != nil {
			b.Fatal(err)
		}
		day2 += time.Since(t0)
		b.StopTimer()
		reqs2 += len(w.web.Requests())
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(day1.Seconds()*1000/n, "ms/day1")
	b.ReportMetric(day2.Seconds()*1000/n, "ms/day2")
	b.ReportMetric(float64(reqs1)/n, "requests/day1")
	b.ReportMetric(float64(reqs2)/n, "requests/day2")
}
