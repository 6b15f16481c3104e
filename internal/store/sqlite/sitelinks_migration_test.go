package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// A database made before site_links (here: made now, then the table and
// its triggers taken out, the two indexes of links by site put back, and
// the schema version stepped back over both migrations) counts the links
// it already holds when opened, and keeps counting from then on.
func TestMigrationCountsSiteLinks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := db.AddSource(ctx, "https://a.example/", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AddSource(ctx, "https://b.example/", time.Unix(0, 0)); err != nil { // a site of the directory, to be cited
		t.Fatal(err)
	}
	var urls []string
	for i := range 3 {
		urls = append(urls, fmt.Sprintf("https://a.example/%d", i))
	}
	var add []store.NewPost
	for _, u := range urls {
		add = append(add, store.NewPost{URL: u, SourceID: src.ID, Seen: time.Unix(0, 0)})
	}
	if _, err := db.AddPosts(ctx, add); err != nil {
		t.Fatal(err)
	}
	save := func(db *DB, u string, cites ...string) {
		t.Helper()
		p, err := db.Post(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "text of " + u, Citations: cites, Fetched: time.Unix(1, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	save(db, urls[0], "https://b.example/1", "https://b.example/2", "https://c.example/")
	save(db, urls[1], "https://b.example/3")
	db.Close()

	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var version int
	if err := raw.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TRIGGER links_counted`, `DROP TRIGGER links_uncounted`, `DROP TRIGGER links_recounted`, `DROP TABLE site_links`,
		`CREATE INDEX links_from ON links(from_site, to_site)`, `CREATE INDEX links_to ON links(to_site, from_site)`,
		fmt.Sprintf(`UPDATE schema_version SET version = %d`, version-2)} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	raw.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	save(db, urls[2], "https://c.example/x")
	save(db, urls[1], "https://d.example/") // its b.example link replaced
	d, err := db.SiteData().Site(ctx, "a.example", time.Unix(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []model.SiteCount{{Site: "b.example", Count: 2}, {Site: "c.example", Count: 2}, {Site: "d.example", Count: 1}}
	if d.Citations.Out != 5 || fmt.Sprint(d.Citations.TopOut) != fmt.Sprint(want) {
		t.Errorf("citations out of a.example: %d %v, want 5 %v", d.Citations.Out, d.Citations.TopOut, want)
	}
	b, err := db.SiteData().Site(ctx, "b.example", time.Unix(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	if b.Citations.In != 2 || len(b.Citations.TopIn) != 1 || b.Citations.TopIn[0] != (model.SiteCount{Site: "a.example", Count: 2}) {
		t.Errorf("citations into b.example: %d %v, want 2 from a.example", b.Citations.In, b.Citations.TopIn)
	}
}
