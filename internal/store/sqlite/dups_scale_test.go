package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/storetest"
)

// TestDuplicateCost: what a page's save with its fingerprint and duplicate
// lookup costs over many fingerprinted posts (200,000; CORPUSBOT_DUP_POSTS
// overrides it); the plans are checked on PostgreSQL (TestDuplicatePlans).
func TestDuplicateCost(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("builds many posts")
	}
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("CORPUSBOT_DUP_POSTS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "dups.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	for _, q := range []string{
		`INSERT INTO sources(id, url, ident, site, added) VALUES (1, 'http://dups.example/', 'http://dups.example/', 'dups.example', 1)`,
		fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d)
			INSERT INTO posts(id, url, source_id, state, text_from, first_seen) SELECT i, 'http://dups.example/p' || i, 1, 'indexed', 'page', i FROM s`, n),
		fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d)
			INSERT INTO post_sigs(post_id, hash, minhash) SELECT i, printf('%%064x', i), printf('%%0256x', i) FROM s`, n),
		fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d), b(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM b WHERE k < 7)
			INSERT OR IGNORE INTO post_bands(band, post_id) SELECT (k << 56) | ((i * 2654435761 + k * 40503) %% 72057594037927935), i FROM s, b`, n),
		// No ANALYZE: the crawler never gathers statistics, and without
		// them SQLite once planned the band lookup from every indexed post
		// (through posts_state_dated), a save's cost growing with the corpus.
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	t.Logf("populated %d fingerprinted posts in %v", n, time.Since(begin).Round(time.Millisecond))
	if d, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	save := func(i int, text string) {
		t.Helper()
		u := fmt.Sprintf("http://dups.example/new%d", i)
		if _, err := d.AddPosts(ctx, []store.NewPost{{URL: u, SourceID: 1, Seen: time.Unix(0, int64(n+i))}}); err != nil {
			t.Fatal(err)
		}
		p, err := d.Post(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: text, TextFrom: model.TextFromPage, Fetched: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	save(0, storetest.Article(1))
	save(1, storetest.Article(1))
	if p, _ := d.Post(ctx, "http://dups.example/new1"); p.DuplicateOf == 0 {
		t.Errorf("the copy is no duplicate")
	}
	const saves = 100
	begin = time.Now()
	for i := range saves {
		save(10+i, storetest.Article(100+i))
	}
	per := time.Since(begin) / saves
	t.Logf("a new post added, then its page saved with its fingerprint and duplicate lookup (two commits), at %d posts: %v a post (%d posts)", n, per.Round(10*time.Microsecond), saves)
	// Through the indexes a save costs about a millisecond whatever n; a
	// plan that visits every indexed post costs 100 ms or more at 200,000.
	if limit := 25 * time.Millisecond; n >= 100_000 && per > limit {
		t.Errorf("a save costs %v at %d posts, over %v: the duplicate lookup is not going through the bands' index", per, n, limit)
	}
}
