package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// BenchmarkWrites is the store's small writes sent by many goroutines at
// once, each write's own transaction (the way before group commit) against
// group commit, in the same run:
//
//	go test -run '^$' -bench Writes -benchtime 2s -count 3 ./internal/store/sqlite
//
// writes/s is committed writes a second, every one fsynced before its
// caller returned.
func BenchmarkWrites(b *testing.B) {
	const sources, posts = 1000, 20000
	text := strings.Repeat("Some text of a page. ", 50)
	kinds := []struct {
		name  string
		write func(ctx context.Context, db *DB, i int64) error
	}{
		{"SavePage", func(ctx context.Context, db *DB, i int64) error {
			return db.SavePage(ctx, store.PageResult{PostID: i%posts + 1, State: model.PostIndexed, Title: "A title", Text: text,
				TextFrom: model.TextFromPage, Citations: []string{"https://cited.example/post"}, Fetched: t0.Add(time.Duration(i))})
		}},
		{"UpdateFeed", func(ctx context.Context, db *DB, i int64) error {
			id := i%sources + 1
			return db.UpdateFeed(ctx, store.Feed{ID: id, URL: fmt.Sprintf("https://blog%d.example/feed", id), State: model.FeedActive,
				Catalogue: model.CatalogueDone, LastRead: t0, Checked: t0.Add(time.Duration(i)), NextDue: t0.Add(24 * time.Hour)})
		}},
	}
	txPerWrite := dialect
	txPerWrite.GroupCommit = false
	for _, mode := range []struct {
		name    string
		dialect store.Dialect
	}{{"tx-per-write", txPerWrite}, {"group-commit", dialect}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			db, err := open(ctx, filepath.Join(b.TempDir(), "bench.db"), mode.dialect)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			fill(b, db, sources, posts)
			for _, kind := range kinds {
				for _, g := range []int{1, 16, 256, 1024} {
					b.Run(fmt.Sprintf("%s/goroutines=%d", kind.name, g), func(b *testing.B) {
						var next atomic.Int64
						var wg sync.WaitGroup
						for range g {
							wg.Go(func() {
								for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
									if err := kind.write(ctx, db, i); err != nil {
										b.Error(err)
										return
									}
								}
							})
						}
						wg.Wait()
						b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
					})
				}
			}
		})
	}
}
