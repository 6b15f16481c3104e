package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// A database holding several sources for one homepage, as a binary before
// source identity stored them, has them merged when it is next opened,
// once: the store_meta marker says it is done.
func TestOpenMergesDuplicateSources(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	w := db.Writer()
	for _, q := range []string{
		`DELETE FROM store_meta WHERE name = 'source_ident'`,
		`INSERT INTO sources(url, added, site) VALUES ('https://b%C3%BCcher.example/', 1, 'xn--bcher-kva.example')`,
		`INSERT INTO sources(url, added, site) VALUES ('https://xn--bcher-kva.example', 2, 'xn--bcher-kva.example')`,
		`INSERT INTO feeds(source_id, url, state, catalogue) VALUES (2, 'https://xn--bcher-kva.example/feed', 'active', 'none')`,
	} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Writer().QueryRowContext(ctx, `SELECT COUNT(*) FROM sources`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d sources after reopening (%v), want 1", n, err)
	}
	src, isNew, err := db.AddSource(ctx, "https://bücher.example/", time.Now())
	if err != nil || isNew || src.ID != 1 || src.URL != "https://xn--bcher-kva.example/" {
		t.Errorf("AddSource after the merge: %+v new %v %v; want source 1 at its punycode URL", src, isNew, err)
	}
	feeds, err := db.SourceFeeds(ctx, 1)
	if err != nil || len(feeds) != 1 {
		t.Errorf("source 1 feeds %+v %v, want the merged one's feed", feeds, err)
	}
}
