package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/storetest"
)

// dupPosts is how many fingerprinted posts TestDuplicatePlans builds
// (CORPUSBOT_DUP_POSTS overrides it: 1000000 for the figure at a million).
func dupPosts() int {
	if n, err := strconv.Atoi(os.Getenv("CORPUSBOT_DUP_POSTS")); err == nil && n > 0 {
		return n
	}
	return 200_000
}

// TestDuplicatePlans: over many fingerprinted posts, storing a page's text
// finds the earlier holders of its text through indexes only (no Seq Scan
// of posts, post_sigs or post_bands), and what a page's save costs.
func TestDuplicatePlans(t *testing.T) {
	if testing.Short() {
		t.Skip("builds many posts")
	}
	ctx := context.Background()
	log := &queryLog{}
	db, err := postgres.OpenTraced(ctx, testDSN(t), log)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := dupPosts()
	begin := time.Now()
	for _, q := range []string{
		`INSERT INTO sources(id, url, ident, site, added) VALUES (1, 'http://dups.example/', 'http://dups.example/', 'dups.example', 1)`,
		fmt.Sprintf(`INSERT INTO posts(id, url, source_id, state, text_from, first_seen)
			SELECT i, 'http://dups.example/p' || i, 1, 'indexed', 'page', i FROM generate_series(1, %d) i`, n),
		fmt.Sprintf(`INSERT INTO post_sigs(post_id, hash, minhash)
			SELECT i, md5(i::text) || md5((-i)::text), repeat(lpad(to_hex(i), 8, '0'), 32) FROM generate_series(1, %d) i`, n),
		fmt.Sprintf(`INSERT INTO post_bands(band, post_id)
			SELECT (b::bigint << 56) | (hashint8(i * 8 + b) & 72057594037927935), i FROM generate_series(1, %d) i, generate_series(0, 7) b
			ON CONFLICT DO NOTHING`, n),
		`SELECT setval(pg_get_serial_sequence('posts', 'id'), (SELECT max(id) FROM posts))`,
		`ANALYZE`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	t.Logf("populated %d fingerprinted posts in %v", n, time.Since(begin).Round(time.Millisecond))

	src, err := db.Source(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	save := func(i int, text string) {
		t.Helper()
		u := fmt.Sprintf("http://dups.example/new%d", i)
		if _, err := db.AddPosts(ctx, []store.NewPost{{URL: u, SourceID: src.ID, Seen: time.Unix(0, int64(n+i))}}); err != nil {
			t.Fatal(err)
		}
		p, err := db.Post(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: text, TextFrom: model.TextFromPage, Fetched: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	save(0, storetest.Article(1))
	sent := log.capture(func() { save(1, storetest.Article(1)) })
	checked := 0
	for _, s := range sent {
		if !strings.HasPrefix(strings.TrimSpace(s.sql), "SELECT") || (!strings.Contains(s.sql, "post_sigs") && !strings.Contains(s.sql, "post_bands")) {
			continue
		}
		checked++
		plan, raw := explain(t, db, s)
		if os.Getenv("CORPUSBOT_SHOW_PLANS") != "" {
			t.Logf("%s\n%s", s.sql, raw)
		}
		plan.walk(func(n planNode) {
			if n.NodeType == "Seq Scan" && (bigTables[n.Relation] || n.Relation == "post_sigs" || n.Relation == "post_bands") {
				t.Errorf("Seq Scan on %s:\n%s", n.Relation, s.sql)
			}
		})
	}
	if checked != 2 {
		t.Errorf("%d lookups of the fingerprints seen, want 2 (the hash, the bands)", checked)
	}
	p, err := db.Post(ctx, "http://dups.example/new1")
	if err != nil {
		t.Fatal(err)
	}
	if first, _ := db.Post(ctx, "http://dups.example/new0"); p.DuplicateOf != first.ID {
		t.Errorf("the copy's duplicate_of is %d, want %d", p.DuplicateOf, first.ID)
	}

	const saves = 100
	begin = time.Now()
	for i := range saves {
		save(10+i, storetest.Article(100+i))
	}
	t.Logf("a new post added, then its page saved with its fingerprint and duplicate lookup (two commits), at %d posts: %v a post (%d posts)", n, (time.Since(begin) / saves).Round(10*time.Microsecond), saves)
}
