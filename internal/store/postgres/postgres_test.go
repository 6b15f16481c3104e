package postgres_test

import (
	"context"
	"sync"
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	storetest.RunSuite(t, func(t *testing.T) *store.DB { return open(t, testDSN(t)).DB })
}

// Workers starting at once migrate once, and a reopen keeps the data.
func TestConcurrentMigrateAndReopen(t *testing.T) {
	dsn := testDSN(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			db, err := openErr(dsn)
			if err == nil {
				db.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	db := open(t, dsn)
	if _, _, err := db.AddSource(ctx, "https://a.example/", storetest.T0); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, dsn)
	n := 0
	db.EachSource(ctx, func(store.Source) error { n++; return nil })
	if n != 1 {
		t.Fatalf("%d sources after reopen", n)
	}
}

// PostgreSQL's text cannot hold NUL; a page with one is still saved.
func TestNULInText(t *testing.T) {
	db := open(t, testDSN(t))
	ctx := context.Background()
	src, _, err := db.AddSource(ctx, "https://a.example/", storetest.T0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPosts(ctx, []store.NewPost{{URL: "https://a.example/p", SourceID: src.ID, Title: "a\x00b"}}); err != nil {
		t.Fatal(err)
	}
	p, err := db.Post(ctx, "https://a.example/p")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "x\x00y", TextFrom: model.TextFromPage, Fetched: storetest.T0}); err != nil {
		t.Fatal(err)
	}
	if p, _ = db.Post(ctx, "https://a.example/p"); p.Text != "xy" || p.Title != "ab" || p.Due {
		t.Fatalf("%+v", p)
	}
}

func TestSiteDataSuite(t *testing.T) {
	storetest.RunSiteDataSuite(t, func(t *testing.T) *store.DB { return open(t, testDSN(t)).DB })
}

func TestRecordSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	storetest.RunRecordSuite(t, func(t *testing.T) *store.DB { return open(t, testDSN(t)).DB })
}
