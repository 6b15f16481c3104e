package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

// BenchmarkSavePageCorpus is BenchmarkSavePage at the size where the
// store's share of the crawl grows: pages of real size (10–40 KB of text
// and as much Markdown, 20–60 citations, a Meta), each a post's first
// save, by 32 goroutines at once through the group commit, into a store
// already holding 250,000 fingerprinted posts (8 bands each) and 1.25
// million citations.
//
//	go test -run '^$' -bench SavePageCorpus -benchtime 3000x -count 6 -benchmem ./internal/store/sqlite
//
// The corpus is built once per schema version and kept in the temporary
// directory (about 20 s to build; each run copies it). Besides the wall
// time, cpu-us/op is the process's CPU per page saved (every goroutine,
// SQLite's and the collector's), and write-B/op the bytes the process
// wrote per page (WAL frames and checkpoints: /proc/self/io wchar), which
// the load of a shared machine does not move.
func BenchmarkSavePageCorpus(b *testing.B) {
	const sources, others, pending, linksEach = 2000, 250_000, 3000, 5
	if b.N > pending {
		b.Fatalf("at most %d pages (-benchtime %dx): each is a post's first save", pending, pending)
	}
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	if err := copyFile(corpusDB(b, sources, others, pending, linksEach), path); err != nil {
		b.Fatal(err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	pages := make([]store.PageResult, b.N)
	for i := range pages {
		pages[i] = corpusPage(int64(i+1), i%sources+1)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	before, wrote, group := cpuTime(), bytesWritten(), db.GroupStats()
	b.ResetTimer()
	for range 32 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
				if err := db.SavePage(ctx, pages[i]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	after := db.GroupStats()
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-us/op")
	b.ReportMetric(float64(bytesWritten()-wrote)/float64(b.N), "write-B/op")
	b.ReportMetric(float64(after.Writes-group.Writes)/float64(after.Batches-group.Batches), "writes/commit")
}

// corpusDB is the path of a database of the given shape, built on the
// first call of this schema version and kept: sources with a feed each,
// pending posts 1..pending, and others indexed posts with a fingerprint,
// 8 bands and linksEach citations each.
func corpusDB(b *testing.B, sources, others, pending, linksEach int) string {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("corpusbot-savepage-v%d-%d-%d-%d-%d.db", len(migrations), sources, others, pending, linksEach))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	ctx := context.Background()
	tmp := path + ".building"
	os.Remove(tmp)
	db, err := Open(ctx, tmp)
	if err != nil {
		b.Fatal(err)
	}
	fill(b, db, sources, pending)
	for _, q := range []string{
		`UPDATE sources SET site = 'blog' || id || '.example'`,
		`UPDATE posts SET state = 'pending', text = '', text_from = '', due = 1, fetched = 0, lastmod = 0`,
		fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d)
			INSERT INTO posts(id, url, source_id, title, state, text_from, text, first_seen, fetched)
			SELECT %d + i, 'https://blog' || (1 + i %% %d) || '.example/' || i || '/a-post-title-of-some-length', 1 + i %% %d,
				'A title', 'indexed', 'page', 'Some text of a post, shorter than most.', i, i FROM s`,
			others, pending, sources, sources),
		fmt.Sprintf(`INSERT INTO post_sigs(post_id, hash, minhash) SELECT id, printf('%%064x', id), printf('%%0256x', id) FROM posts WHERE id > %d`, pending),
		fmt.Sprintf(`WITH b(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM b WHERE k < 7)
			INSERT OR IGNORE INTO post_bands(band, post_id) SELECT (k << 56) | ((id * 2654435761 + k * 40503) %% 72057594037927935), id FROM posts, b WHERE id > %d`, pending),
		fmt.Sprintf(`WITH c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < %d)
			INSERT INTO links(post_id, from_site, to_site, url) SELECT id, 'blog' || source_id || '.example',
				'cited' || ((id * 7919 + k * 104729) %% 5000) || '.example', 'https://cited' || ((id * 7919 + k * 104729) %% 5000) || '.example/' || id || '/a-cited-post'
			FROM posts, c WHERE id > %d`, linksEach-1, pending),
		`PRAGMA wal_checkpoint(TRUNCATE)`,
	} {
		if _, err := db.Writer().ExecContext(ctx, q); err != nil {
			b.Fatalf("%v\n%s", err, q)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// bytesWritten is what the process has passed to write calls (wchar), or
// 0 where /proc says nothing.
func bytesWritten() int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// corpusPage is a page of real size for post id on blog source: 2,000 to
// 7,000 words of its own prose, the Markdown with links, 20 to 60
// citations (three in four to other sites).
func corpusPage(id int64, source int) store.PageResult {
	p := benchPage(id, source)
	r := rand.New(rand.NewPCG(uint64(id), 12))
	words := strings.Fields(p.Text)
	var text, md strings.Builder
	for w := range 2000 + r.IntN(5000) {
		word := words[r.IntN(len(words))]
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
	p.Text, p.Markdown = text.String(), md.String()
	p.Citations = nil
	for c := range 20 + r.IntN(41) {
		if c%4 != 3 {
			p.Citations = append(p.Citations, fmt.Sprintf("https://cited%d.example/%d/a-post-title-of-some-length", r.IntN(5000), c))
		} else {
			p.Citations = append(p.Citations, fmt.Sprintf("https://blog%d.example/%d/an-earlier-post", source, c))
		}
	}
	p.Fetched = t0.Add(time.Duration(id) * time.Second)
	return p
}

// BenchmarkSourceSitemaps is the crawler's look at one source's sitemaps
// (sitemap discovery asks it for every source it works on) in a store of
// 50,000 sources with two top-level sitemaps each: its cost should not
// grow with the number of sources.
//
//	go test -run '^$' -bench SourceSitemaps -count 6 -benchmem ./internal/store/sqlite
func BenchmarkSourceSitemaps(b *testing.B) {
	const sources = 50_000
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fill(b, db, sources, 0)
	for _, q := range []string{
		`INSERT INTO sitemaps(source_id, url, via, state) SELECT id, url || 'sitemap.xml', 'robots', 'active' FROM sources`,
		`INSERT INTO sitemaps(source_id, url, via, state) SELECT id, url || 'wp-sitemap.xml', 'guess', 'active' FROM sources`,
	} {
		if _, err := db.Writer().ExecContext(ctx, q); err != nil {
			b.Fatalf("%v\n%s", err, q)
		}
	}
	i := 0
	for b.Loop() {
		i++
		got, err := db.SourceSitemaps(ctx, int64(i%sources+1))
		if err != nil || len(got) != 2 {
			b.Fatal(len(got), err)
		}
	}
}
