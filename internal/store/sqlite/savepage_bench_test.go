package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// BenchmarkSavePage is a first pass's page saves as the crawler makes them:
// a page of about 1,000 words of prose (its text and a Markdown form a
// little longer) with 20 citations (15 to other sites, 5 to its own), each
// post saved once, by 32 goroutines at once so that the group commit
// gathers them, on a store holding 100,000 other fingerprinted posts.
//
//	go test -run '^$' -bench SavePage -benchtime 2000x -count 5 ./internal/store/sqlite
//
// cpu-us/op is the process's CPU time (user and system, every goroutine,
// SQLite's and the collector's too) per page saved: on a shared machine
// the wall time per op says more about the load than about the code.
func BenchmarkSavePage(b *testing.B) {
	const sources, others, saved = 1000, 100_000, 4096
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fill(b, db, sources, saved)
	for _, q := range []string{
		`UPDATE sources SET site = 'blog' || id || '.example'`,
		`UPDATE posts SET state = 'pending', text = '', text_from = '', due = 1, fetched = 0`,
		fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d)
			INSERT INTO posts(id, url, source_id, state, text_from, first_seen) SELECT %d + i, 'https://other.example/p' || i, 1 + i %% %d, 'indexed', 'page', i FROM s`,
			others, saved, sources),
		fmt.Sprintf(`INSERT INTO post_sigs(post_id, hash, minhash) SELECT id, printf('%%064x', id), printf('%%0256x', id) FROM posts WHERE id > %d`, saved),
		fmt.Sprintf(`WITH b(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM b WHERE k < 7)
			INSERT OR IGNORE INTO post_bands(band, post_id) SELECT (k << 56) | ((id * 2654435761 + k * 40503) %% 72057594037927935), id FROM posts, b WHERE id > %d`, saved),
	} {
		if _, err := db.Writer().ExecContext(ctx, q); err != nil {
			b.Fatalf("%v\n%s", err, q)
		}
	}
	pages := make([]store.PageResult, saved)
	for i := range pages {
		pages[i] = benchPage(int64(i+1), i%sources+1)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	before := cpuTime()
	b.ResetTimer()
	for range 32 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
				p := pages[i%saved]
				p.Fetched = t0.Add(time.Duration(i) * time.Second)
				if err := db.SavePage(ctx, p); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-us/op")
}

// benchPage is a page of post id on blog source: its own prose, its own
// citations.
func benchPage(id int64, source int) store.PageResult {
	vocab := strings.Fields(`the a of to in and is that for it as was with be by on not he this are or his from at which
		but have an they you were her she there been one all we their has would when if so no what up out more time about
		some them could into than other then like its only over new also after most two our these way may any first garden
		river winter market music letter station window morning engine history kitchen paper village summer bridge`)
	r := rand.New(rand.NewPCG(uint64(id), 11))
	var text, md strings.Builder
	for w := range 1000 {
		word := vocab[r.IntN(len(vocab))]
		if w%12 == 11 {
			text.WriteString(".\n")
			md.WriteString(".\n\n")
		} else if w > 0 {
			text.WriteByte(' ')
			md.WriteByte(' ')
		}
		text.WriteString(word)
		if w%40 == 7 {
			fmt.Fprintf(&md, "[%s](https://cited%d.example/%s)", word, r.IntN(5000), word)
		} else {
			md.WriteString(word)
		}
	}
	var cites []string
	for c := range 20 {
		if c < 15 {
			cites = append(cites, fmt.Sprintf("https://cited%d.example/%d/a-post-title-of-some-length", r.IntN(5000), c))
		} else {
			cites = append(cites, fmt.Sprintf("https://blog%d.example/%d/an-earlier-post", source, c))
		}
	}
	return store.PageResult{
		PostID: id, State: model.PostIndexed, Title: fmt.Sprintf("Post %d", id), Text: text.String(), Markdown: md.String(),
		TextFrom: model.TextFromPage, ETag: `"abc"`, LastModified: "Mon, 01 Dec 2025 10:00:00 GMT", Citations: cites,
		Published: t0.Add(-time.Duration(id) * time.Hour), Modified: t0.Add(-time.Duration(id) * time.Minute),
		Meta: store.Meta{Author: "Jane Doe", Language: "en", Description: "A post about things.", SiteName: "A Blog",
			Tags: []string{"rivers", "villages"}, License: "https://creativecommons.org/licenses/by/4.0/", Image: "https://blog.example/i.jpg"},
	}
}
