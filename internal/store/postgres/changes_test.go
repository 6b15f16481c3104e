package postgres_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/storetest"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Transactions commit out of the order they began in: a change by a
// transaction that began before a cursor but committed after it is after
// the cursor, and one that committed before it is not, whatever their
// transaction IDs' order.
func TestCursorExactAcrossConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx := context.Background()
	dsn := testDSN(t)
	db := open(t, dsn)
	src, _, err := db.AddSource(ctx, "https://conc.example/", storetest.T0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPosts(ctx, []store.NewPost{{URL: "https://conc.example/early", SourceID: src.ID}, {URL: "https://conc.example/late", SourceID: src.ID},
		{URL: "https://conc.example/same", SourceID: src.ID}}); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// The slow writer begins first (the lower transaction ID) and commits
	// after the cursor.
	slow, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback()
	if _, err := slow.ExecContext(ctx, `UPDATE posts SET title = 'slow' WHERE url = 'https://conc.example/late'`); err != nil {
		t.Fatal(err)
	}
	fast, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fast.ExecContext(ctx, `UPDATE posts SET title = 'fast' WHERE url = 'https://conc.example/early'`); err != nil {
		t.Fatal(err)
	}
	if err := fast.Commit(); err != nil {
		t.Fatal(err)
	}
	c, err := db.Cursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	// A write that changes no field of the record stamps nothing.
	if _, err := raw.ExecContext(ctx, `UPDATE posts SET due = 0, attempts = 1 WHERE url = 'https://conc.example/same'`); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := db.ExportPosts(ctx, store.ExportFilter{Since: c}, func(p store.Post) error { got = append(got, p.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"https://conc.example/late"}) {
		t.Errorf("since the cursor: %v, want only the post the slow writer committed after it", got)
	}
}
