package postgres_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/store/storetest"
)

// BenchmarkStoreDay is one simulated day of store traffic for 20 blogs on
// each backend: discover, one feed read of 20 posts and one 200-URL sitemap
// per blog, then every due post fetched (SavePage) and its request logged.
// It stands in for the crawl package's simulated day, whose test world is
// SQLite-only; the crawl itself is network-bound either way.
func BenchmarkStoreDay(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		benchDay(b, func(b *testing.B) *store.DB {
			db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "b.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db.DB
		})
	})
	b.Run("postgres", func(b *testing.B) {
		benchDay(b, func(b *testing.B) *store.DB { return open(b, testDSN(b)).DB })
	})
}

func benchDay(b *testing.B, newStore func(*testing.B) *store.DB) {
	ctx := context.Background()
	const blogs, feedPosts, smURLs = 20, 20, 200
	pages := 0
	for b.Loop() {
		b.StopTimer()
		st := newStore(b)
		b.StartTimer()
		now := storetest.T0
		for i := range blogs {
			src, _, err := st.AddSource(ctx, fmt.Sprintf("https://blog%d.example/", i), now)
			if err != nil {
				b.Fatal(err)
			}
			if err := st.MarkDiscovered(ctx, src.ID, now); err != nil {
				b.Fatal(err)
			}
			f, err := st.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: src.URL + "feed.xml"})
			if err != nil {
				b.Fatal(err)
			}
			var posts []store.NewPost
			for p := range feedPosts {
				posts = append(posts, store.NewPost{URL: fmt.Sprintf("%sp/%d", src.URL, p), SourceID: src.ID, Title: "t", Published: now, Lastmod: now})
			}
			if _, err := st.FeedRead(ctx, posts, func(store.AddResult) store.Feed { f.LastRead, f.Checked = now, now; return f }); err != nil {
				b.Fatal(err)
			}
			sm, err := st.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: src.URL + "sitemap.xml", Via: model.ViaRobots})
			if err != nil {
				b.Fatal(err)
			}
			urls := make([]store.SitemapURL, smURLs)
			for u := range urls {
				urls[u] = store.SitemapURL{Loc: fmt.Sprintf("%sp/%d", src.URL, u), Lastmod: now}
			}
			if _, err := st.IngestSitemap(ctx, sm, time.Time{}, urls, true); err != nil {
				b.Fatal(err)
			}
		}
		for {
			due, err := st.PostsDue(ctx, 0, time.Now(), 100)
			if err != nil {
				b.Fatal(err)
			}
			if len(due) == 0 {
				break
			}
			for _, p := range due {
				if err := st.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "some text", TextFrom: model.TextFromPage,
					Citations: []string{"https://x.example/"}, Fetched: now}); err != nil {
					b.Fatal(err)
				}
				if err := st.LogRequests(ctx, []model.RequestRecord{{Site: "blog.example", URL: p.URL, Purpose: model.PurposePage, Status: 200,
					Start: now, Duration: time.Millisecond, Outcome: model.OutcomeFetched}}); err != nil {
					b.Fatal(err)
				}
				pages++
			}
		}
	}
	b.ReportMetric(float64(pages)/float64(b.N), "pages/day")
}
