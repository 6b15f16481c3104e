package crawl_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// BenchmarkRequestLog is request-log rows stored a second as the fetcher
// hands its records to Observe from many goroutines at once: the way
// before (each record stored in a transaction of its own, on the fetcher's
// goroutine, on SQLite without group commit) against Observe's batches
// written behind the fetcher's back, each on both stores, in the same run:
//
//	go test -run '^$' -bench RequestLog -benchtime 2s -count 3 ./internal/crawl
//
// Every run ends with a Flush: rows/s counts rows committed.
func BenchmarkRequestLog(b *testing.B) {
	ctx := context.Background()
	paths := []struct {
		name    string
		observe func(c *crawl.Crawler, db *store.DB, rec model.RequestRecord) error
	}{
		{"one-tx-per-record", func(c *crawl.Crawler, db *store.DB, rec model.RequestRecord) error {
			return db.LogRequests(ctx, []model.RequestRecord{rec}) // what Observe did
		}},
		{"Observe-batched", func(c *crawl.Crawler, db *store.DB, rec model.RequestRecord) error {
			c.Observe(rec)
			return nil
		}},
	}
	for _, st := range []struct {
		name string
		open func(b *testing.B) *store.DB
	}{{"tx-per-write", openTxPerWrite}, {"group-commit", openSQLite}} {
		b.Run(st.name, func(b *testing.B) {
			db := st.open(b)
			for _, path := range paths {
				for _, g := range []int{1, 16, 256, 1024} {
					b.Run(fmt.Sprintf("%s/goroutines=%d", path.name, g), func(b *testing.B) {
						c := crawl.New(crawl.Config{Store: db, Log: discard})
						defer c.Close()
						var next atomic.Int64
						var wg sync.WaitGroup
						for range g {
							wg.Go(func() {
								for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
									if err := path.observe(c, db, requestRecord(i)); err != nil {
										b.Error(err)
										return
									}
								}
							})
						}
						wg.Wait()
						if err := c.Flush(ctx); err != nil {
							b.Fatal(err)
						}
						b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
					})
				}
			}
		})
	}
}

func requestRecord(i int64) model.RequestRecord {
	site := fmt.Sprintf("blog%d.example", i%5000)
	return model.RequestRecord{Site: site, URL: fmt.Sprintf("https://%s/post/%d", site, i), Purpose: model.PurposePage, Status: 200,
		Bytes: 14000, Start: start.Add(time.Duration(i) * time.Millisecond), Duration: 80 * time.Millisecond, Conditional: true,
		Outcome: model.OutcomeFetched}
}

func openSQLite(b *testing.B) *store.DB {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "log.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db.DB
}

// openTxPerWrite is the SQLite store as it was before group commit: the
// file sqlite.Open made, its pools opened as sqlite.Open opens them, and
// every write a transaction of its own.
func openTxPerWrite(b *testing.B) *store.DB {
	path := filepath.Join(b.TempDir(), "log.db")
	made, err := sqlite.Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	made.Close()
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		b.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		b.Fatal(err)
	}
	r.SetMaxOpenConns(4)
	db := store.New(w, r, store.Dialect{Name: "sqlite", QuestionPlaceholders: true}, "", 0, discard)
	b.Cleanup(func() { db.Close() })
	return db
}
