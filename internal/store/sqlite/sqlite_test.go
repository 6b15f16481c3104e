package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestSuite(t *testing.T) {
	storetest.RunSuite(t, func(t *testing.T) store.Store {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AddSource(ctx, "https://a.example/", storetest.T0); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlite.Open(ctx, path) // migrations already applied: a no-op
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	db.EachSource(ctx, func(store.Source) error { n++; return nil })
	if n != 1 {
		t.Fatalf("%d sources after reopen", n)
	}
}
