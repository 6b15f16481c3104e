package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// A database the previous schema made, with one post stored under several
// URLs (feed, sitemap and IndexNow spellings of one page), is brought to
// one record per post when opened: the earliest record kept, the others'
// sitemap listings moved to it, a fetched page (text, citations) kept,
// every old URL an alias.
func TestMigrationMergesDuplicatePosts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	before := len(migrations)
	for i, m := range migrations {
		if strings.Contains(m, "CREATE TABLE url_aliases") {
			before = i
		}
	}
	if before == len(migrations) {
		t.Fatal("no identity migration found")
	}
	old := migrations
	migrations = old[:before] // the previous schema
	err = migrate(ctx, raw)
	migrations = old
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sources(id, url, added, site) VALUES (1, 'https://dup.example/', 1, 'dup.example')`,
		// Post 1 from the feed, fetched; 2 and 3 the same page from the
		// sitemap and a share link, 2 listed by the sitemap; 4 another post.
		`INSERT INTO posts(id, url, source_id, state, text, text_from, citations, fetched, due, in_feed)
			VALUES (1, 'https://dup.example/a?utm_source=rss', 1, 'indexed', 'the text', 'page', '["https://cited.example/"]', 5, 0, 1)`,
		`INSERT INTO posts(id, url, source_id, state, due, lastmod) VALUES (2, 'https://DUP.example:443/a', 1, 'pending', 1, 9)`,
		`INSERT INTO posts(id, url, source_id, state, due) VALUES (3, 'https://dup.example/x/../a#top', 1, 'pending', 1)`,
		`INSERT INTO posts(id, url, source_id, state, due) VALUES (4, 'https://dup.example/b', 1, 'pending', 1)`,
		`INSERT INTO sitemaps(id, source_id, url, via, state) VALUES (1, 1, 'https://dup.example/sitemap.xml', 'robots', 'active')`,
		`INSERT INTO sitemap_urls(sitemap_id, post_id, lastmod, seen) VALUES (1, 2, 9, 1), (1, 4, 0, 1)`,
		`INSERT INTO links(post_id, from_site, to_site, url) VALUES (1, 'dup.example', 'cited.example', 'https://cited.example/')`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ids []int64
	var urls []string
	rows, err := db.Writer().QueryContext(ctx, `SELECT id, url FROM posts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var u string
		rows.Scan(&id, &u)
		ids, urls = append(ids, id), append(urls, u)
	}
	rows.Close()
	if len(ids) != 2 || ids[0] != 1 || urls[0] != "https://dup.example/a" || urls[1] != "https://dup.example/b" {
		t.Fatalf("posts after the migration: %v %v; want 1 https://dup.example/a and 4 .../b", ids, urls)
	}
	a, err := db.Post(ctx, "https://dup.example:443/a")
	if err != nil || a.ID != 1 || a.State != "indexed" || a.Text != "the text" || len(a.Citations) != 1 || a.Due {
		t.Errorf("the kept record: %+v, %v", a, err)
	}
	for _, u := range []string{"https://dup.example/a?utm_source=rss", "https://DUP.example:443/a", "https://dup.example/x/../a#top"} {
		if p, err := db.Post(ctx, u); err != nil || p.ID != 1 {
			t.Errorf("Post(%s) = %d, %v; want the kept record", u, p.ID, err)
		}
	}
	var listed, links int
	db.Writer().QueryRowContext(ctx, `SELECT count(*) FROM sitemap_urls WHERE post_id = 1`).Scan(&listed)
	db.Writer().QueryRowContext(ctx, `SELECT count(*) FROM links WHERE post_id = 1`).Scan(&links)
	if listed != 1 || links != 1 {
		t.Errorf("the kept record has %d sitemap listings and %d links, want 1 and 1", listed, links)
	}
	// Opening again changes nothing.
	db.Close()
	db2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
}
