package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestCheckoutSuite(t *testing.T) {
	storetest.RunCheckoutSuite(t, func(t *testing.T) storetest.CheckoutPair {
		dsn := testDSN(t)
		var mu sync.Mutex
		now := storetest.T0
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		a, b := open(t, dsn), open(t, dsn)
		a.SetCheckouts("worker-a", storetest.CheckoutTTL, clock)
		b.SetCheckouts("worker-b", storetest.CheckoutTTL, clock)
		return storetest.CheckoutPair{A: a.DB, B: b.DB, Advance: func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }}
	})
}

// BenchmarkWorkCheckouts is the throughput of work checkouts: workers (each its
// own pool, as separate processes would have) check out due posts ten at a
// time with PostsDue and store each with SavePage, which releases it.
// Reported as posts checked out and finished per second, across the workers.
func BenchmarkWorkCheckouts(b *testing.B) {
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			dsn := testDSN(b)
			ctx := context.Background()
			dbs := make([]*postgres.DB, workers)
			for i := range dbs {
				dbs[i] = open(b, dsn)
				dbs[i].SetCheckouts(fmt.Sprintf("bench-%d", i), time.Minute, nil)
			}
			src, _, err := dbs[0].AddSource(ctx, "https://claims.example/", storetest.T0)
			if err != nil {
				b.Fatal(err)
			}
			var posts []store.NewPost
			for i := range b.N + 10*workers {
				posts = append(posts, store.NewPost{URL: fmt.Sprintf("https://claims.example/p/%d", i), SourceID: src.ID, Lastmod: storetest.T0})
				if len(posts) == 5000 {
					if _, err := dbs[0].AddPosts(ctx, posts); err != nil {
						b.Fatal(err)
					}
					posts = posts[:0]
				}
			}
			if _, err := dbs[0].AddPosts(ctx, posts); err != nil {
				b.Fatal(err)
			}
			var done atomic.Int64
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for _, db := range dbs {
				wg.Go(func() {
					for done.Load() < int64(b.N) {
						ps, err := db.PostsDue(ctx, 0, time.Now(), 10)
						if err != nil {
							b.Error(err)
							return
						}
						if len(ps) == 0 {
							return
						}
						for _, p := range ps {
							if err := db.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostIndexed, Fetched: storetest.T0}); err != nil {
								b.Error(err)
								return
							}
						}
						done.Add(int64(len(ps)))
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(done.Load())/time.Since(start).Seconds(), "claims/s")
		})
	}
}
