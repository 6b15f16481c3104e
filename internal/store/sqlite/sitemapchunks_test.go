package sqlite_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func openTemp(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestSitemapChunkSuite(t *testing.T) {
	storetest.RunSitemapChunkSuite(t, func(t *testing.T) *store.DB { return openTemp(t).DB })
}

// A long read is stored a chunk to a transaction of its own, never in the
// group commit's shared one; a read of at most a chunk is one write of it.
func TestSitemapChunksCommitAlone(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _, err := db.AddSource(ctx, "https://alone.example/", storetest.T0)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := db.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: "https://alone.example/sitemap.xml"})
	if err != nil {
		t.Fatal(err)
	}
	urls := func(n int) []store.SitemapURL {
		out := make([]store.SitemapURL, n)
		for i := range out {
			out[i].Loc = "https://alone.example/p/" + strconv.Itoa(i)
		}
		return out
	}
	for _, tc := range []struct {
		entries      int
		transactions int64
	}{
		{store.SitemapChunk, 1}, // one write, as any other
		// Four chunks, then a pass of removals that finds none.
		{3*store.SitemapChunk + 1, 4 + 1},
		// One write that also withdraws a chunk of the 2,501 URLs no
		// longer listed, then the other 1,501 a chunk at a time.
		{store.SitemapChunk / 2, 1 + 2},
	} {
		before := db.GroupStats()
		if _, err := db.IngestSitemap(ctx, sm, storetest.T0, urls(tc.entries), true); err != nil {
			t.Fatal(err)
		}
		after := db.GroupStats()
		if got := after.Batches - before.Batches; got != tc.transactions || after.Writes-before.Writes != tc.transactions {
			t.Errorf("%d entries: %d transactions of %d writes, want %d of one write each",
				tc.entries, got, after.Writes-before.Writes, tc.transactions)
		}
	}
}
