package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// BenchmarkIngest is the two writes a crawl makes most of per post: a
// feed's entries (AddPosts: new on a first read, known on every read
// after) and a sitemap's URLs (IngestSitemap: on a first pass most are
// known already, from the feed and its catalogue pages, which a site's
// sequence reads before its sitemaps). Each iteration is one site of 200
// posts in a store already holding 100 sites (20,000 posts), so the indexes are deep:
//
//	go test -run '^$' -bench Ingest -benchtime 300x -count 3 ./internal/store/sqlite
//
// cpu-ns/post is the process's CPU time per post written (the writer
// goroutine's included); the wall time is mostly the commit's fsync.
func BenchmarkIngest(b *testing.B) {
	const postsPerSite = 200
	ctx := context.Background()
	for _, kind := range []string{"feed-new", "feed-known", "sitemap-new", "sitemap-known"} {
		b.Run(kind, func(b *testing.B) {
			db, err := Open(ctx, filepath.Join(b.TempDir(), "ingest.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			site, cpu := 0, time.Duration(0)
			// nextSite adds a source and, for the "known" kinds, its posts
			// as its feed gave them, outside the timing.
			nextSite := func(known bool) (store.Source, []store.NewPost) {
				site++
				src, _, err := db.AddSource(ctx, fmt.Sprintf("https://blog%d.example/", site), t0)
				if err != nil {
					b.Fatal(err)
				}
				posts := make([]store.NewPost, postsPerSite)
				for i := range posts {
					posts[i] = store.NewPost{URL: fmt.Sprintf("https://blog%d.example/%d/a-post-title-%d/", site, 2020+i%6, i), SourceID: src.ID,
						Title: "A post", Lastmod: t0.Add(time.Duration(i) * time.Hour), Seen: t0}
				}
				if known {
					if _, err := db.AddPosts(ctx, posts); err != nil {
						b.Fatal(err)
					}
				}
				return src, posts
			}
			for range 100 {
				nextSite(true)
			}
			for b.Loop() {
				b.StopTimer()
				src, posts := nextSite(kind == "feed-known" || kind == "sitemap-known")
				var sm store.Sitemap
				if kind == "sitemap-new" || kind == "sitemap-known" {
					if sm, err = db.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: src.URL + "sitemap.xml", Via: model.ViaRobots}); err != nil {
						b.Fatal(err)
					}
				}
				urls := make([]store.SitemapURL, len(posts))
				for i, p := range posts {
					urls[i] = store.SitemapURL{Loc: p.URL, Lastmod: p.Lastmod}
				}
				b.StartTimer()
				began := cpuTime()
				switch kind {
				case "feed-new", "feed-known":
					res, err := db.AddPosts(ctx, posts)
					if err != nil || (kind == "feed-new") != (res.Added == postsPerSite) {
						b.Fatalf("%+v %v", res, err)
					}
				default:
					diff, err := db.IngestSitemap(ctx, sm, t0, urls, true)
					if err != nil || (kind == "sitemap-new") != (diff.New == postsPerSite) {
						b.Fatalf("%+v %v", diff, err)
					}
				}
				cpu += cpuTime() - began
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*postsPerSite), "cpu-ns/post")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
