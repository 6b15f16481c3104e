package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/store/storetest"
)

// Many sites' jobs writing at once through the group commit: each one's
// add, check out and save are seen by its own next read.
func TestConcurrentWritesSeeThemselves(t *testing.T) {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	const sites = 128
	var wg sync.WaitGroup
	errs := make(chan error, sites)
	for i := range sites {
		wg.Go(func() {
			errs <- siteJob(ctx, db, i)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func siteJob(ctx context.Context, db *sqlite.DB, i int) error {
	home := fmt.Sprintf("https://blog%d.example/", i)
	src, added, err := db.AddSource(ctx, home, storetest.T0)
	if err != nil || !added {
		return fmt.Errorf("add source %s: %v, added %v", home, err, added)
	}
	if got, err := db.Source(ctx, src.ID); err != nil || got.URL != home {
		return fmt.Errorf("source %d after its add: %+v, %v", src.ID, got, err)
	}
	post := home + "post"
	if _, err := db.AddPosts(ctx, []store.NewPost{{URL: post, SourceID: src.ID, Title: "P"}}); err != nil {
		return err
	}
	due, err := db.PostsDue(ctx, src.ID, time.Now(), 10)
	if err != nil || len(due) != 1 || due[0].URL != post {
		return fmt.Errorf("posts due of %s: %+v, %v", home, due, err)
	}
	text := fmt.Sprintf("text of site %d", i)
	if err := db.SavePage(ctx, store.PageResult{PostID: due[0].ID, State: model.PostIndexed, Text: text,
		TextFrom: model.TextFromPage, Fetched: storetest.T0}); err != nil {
		return err
	}
	if p, err := db.Post(ctx, post); err != nil || p.Text != text || p.Due {
		return fmt.Errorf("post %s after its save: %+v, %v", post, p, err)
	}
	return nil
}
