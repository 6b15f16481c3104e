package store_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// The public site's scale: 100,000 sources, 1,000,000 posts by default
// (-sitedata.posts=5000000 for the full figure), a request log of
// as many records, read on SQLite:
//
//	go test -run '^$' -bench SiteData -benchtime 10x ./internal/store
var (
	benchSources  = flag.Int("sitedata.sources", 100000, "sources in BenchmarkSiteData")
	benchPosts    = flag.Int("sitedata.posts", 1000000, "posts in BenchmarkSiteData")
	benchRequests = flag.Int("sitedata.requests", 1000000, "request-log records in BenchmarkSiteData")
)

var benchT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// BenchmarkSiteData reports the time of each page's reads over a large
// store; the database is built once for all of them.
func BenchmarkSiteData(b *testing.B) {
	_, data := benchStore(b)
	ctx := context.Background()
	mid := fmt.Sprintf("blog%d.example", *benchSources/2)
	cases := []struct {
		name string
		fn   func() error
	}{
		{"Coverage", func() error { _, err := data.Coverage(ctx); return err }},
		{"SourcesByState", func() error { _, err := data.SourcesByState(ctx); return err }},
		{"PostsPerMonth", func() error { _, err := data.PostsPerMonth(ctx); return err }},
		{"RequestsPerDay30", func() error { _, err := data.RequestsPerDay(ctx, benchT0.AddDate(0, 0, -30), benchT0); return err }},
		{"SitesFirstPage", func() error { _, err := data.Sites(ctx, model.SitesQuery{Limit: 50}); return err }},
		{"SitesMiddlePage", func() error { _, err := data.Sites(ctx, model.SitesQuery{After: mid, Limit: 50}); return err }},
		{"SitesStateError", func() error {
			_, err := data.Sites(ctx, model.SitesQuery{Limit: 50, State: model.StateError})
			return err
		}},
		{"SitesStateRare", func() error {
			_, err := data.Sites(ctx, model.SitesQuery{After: mid, Limit: 50, State: model.StateUnreachable})
			return err
		}},
		{"SiteDetail", func() error { _, err := data.Site(ctx, mid, benchT0); return err }},
		{"SiteDetailBig", func() error { _, err := data.Site(ctx, "big.example", benchT0); return err }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}

// benchStore builds the store: once, since a benchmark with
// sub-benchmarks runs once.
func benchStore(b *testing.B) (*sqlite.DB, *store.SiteData) {
	begin := time.Now()
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "sitedata.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := fillSiteData(db.Writer(), *benchSources, *benchPosts, *benchRequests); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d sources, %d posts, %d requests in %v", *benchSources, *benchPosts, *benchRequests, time.Since(begin))
	return db, db.SiteData()
}

// fillSiteData bulk-loads a crawl: one feed per source (some erring or
// disallowed), a sitemap for one source in ten, an origin each (a few
// unreachable), a few refused and paused sites, posts in every state with
// a body each, links between sites, and a request log over 60 days. One
// site, big.example, holds 20,000 posts.
func fillSiteData(db *sql.DB, sources, posts, requests int) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.Prepare(q)
		return st
	}
	src := prep(`INSERT INTO sources(id, url, site, added, discovered, paused, paused_by, paused_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	feed := prep(`INSERT INTO feeds(source_id, url, state, catalogue, last_read, checked, title) VALUES (?, ?, ?, 'done', ?, ?, ?)`)
	sm := prep(`INSERT INTO sitemaps(id, source_id, url, via, state, last_read) VALUES (?, ?, ?, 'robots', ?, ?)`)
	origin := prep(`INSERT INTO origins(origin, status, state, checked) VALUES (?, 200, ?, ?)`)
	refusal := prep(`INSERT INTO refusals(site, consecutive403, served, refused, last_asked) VALUES (?, 3, 0, 1, ?)`)
	post := prep(`INSERT INTO posts(id, url, source_id, title, published, lastmod, state, text_from, text, due, fetched)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'page', ?, 0, ?)`)
	smURL := prep(`INSERT INTO sitemap_urls(sitemap_id, post_id, lastmod, seen) VALUES (?, ?, 0, 1)`)
	link := prep(`INSERT INTO links(post_id, from_site, to_site, url) VALUES (?, ?, ?, ?)`)
	req := prep(`INSERT INTO requests(site, url, purpose, status, bytes, start, duration, conditional, outcome, error)
		VALUES (?, ?, ?, ?, 1000, ?, 1000000, ?, ?, '')`)
	if err != nil {
		return err
	}
	t0 := benchT0.UnixNano()
	site := func(i int) string {
		if i == sources {
			return "big.example"
		}
		return fmt.Sprintf("blog%d.example", i)
	}
	exec := func(st *sql.Stmt, args ...any) {
		if err == nil {
			_, err = st.Exec(args...)
		}
	}
	for i := 1; i <= sources; i++ {
		s := site(i)
		disc, paused, by, at := t0, 0, "", int64(0)
		if i%10 == 7 {
			disc = 0
		}
		if i%100 == 13 {
			paused, by, at = 1, "opt-out form", t0
		}
		exec(src, i, "https://"+s+"/", s, t0, disc, paused, by, at)
		state := "active"
		switch i % 40 {
		case 1, 2:
			state = "error"
		case 3:
			state = "disallowed"
		}
		if i%25 != 5 { // one in 25 has no feed
			exec(feed, i, "https://"+s+"/feed", state, t0-int64(i%500)*int64(time.Hour), t0, "Blog "+s)
		}
		if i%10 == 0 {
			exec(sm, i, i, "https://"+s+"/sitemap.xml", "active", t0)
		}
		ostate := "parsed"
		if i%200 == 9 {
			ostate = "unreachable"
		}
		exec(origin, "https://"+s+":443", ostate, t0)
		if i%200 == 11 {
			exec(refusal, s, t0)
		}
	}
	states := []string{"indexed", "indexed", "indexed", "indexed", "indexed", "indexed", "pending", "noindex", "removed", "error", "shell", "skipped", "disallowed"}
	body := strings.Repeat("the stored text of a post, never served. ", 12)
	for i := 1; i <= posts; i++ {
		s := i%sources + 1
		if i%50 == 0 {
			s = sources // big.example
		}
		pub := t0 - int64(i%3650)*int64(24*time.Hour)
		exec(post, i, fmt.Sprintf("https://%s/post/%d", site(s), i), s, fmt.Sprintf("Post %d", i), pub, pub, states[i%len(states)], body, t0)
		if s%10 == 0 {
			exec(smURL, s, i)
		}
		if i%5 == 0 {
			to := (s*7)%sources + 1
			exec(link, i, site(s), site(to), fmt.Sprintf("https://%s/x/%d", site(to), i))
		}
	}
	outcomes := []string{"fetched", "fetched", "unchanged", "fetched", "status", "error", "disallowed", "refused", "redirect"}
	purposes := []string{"feed", "page", "robots", "sitemap", "catalogue"}
	for i := range requests {
		s := i%sources + 1
		out := outcomes[i%len(outcomes)]
		status := 200
		if out == "unchanged" {
			status = 304
		}
		exec(req, site(s), "https://"+site(s)+"/feed", purposes[i%len(purposes)], status,
			t0-int64(i%(60*24))*int64(time.Hour)/24, i%2 == 0, out)
	}
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.Exec(`ANALYZE`)
	return err
}
