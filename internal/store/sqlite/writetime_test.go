package sqlite_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/storetest"
)

// Every write through the group commit is timed under one of the store's
// operations, from its call to its commit; none once the observer is gone.
func TestWriteObserverTimesEveryWrite(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[string]int{}
	db.SetWriteObserver(func(op string, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if took < 0 {
			t.Errorf("%s took %v", op, took)
		}
		seen[op]++
	})
	src, _, err := db.AddSource(ctx, "https://blog.example/", storetest.T0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPosts(ctx, []store.NewPost{{URL: "https://blog.example/p", SourceID: src.ID, Title: "P"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	writes := 0
	for op, n := range seen {
		if !slices.Contains(store.WriteOps(), op) {
			t.Errorf("write timed as %q, not one of %v", op, store.WriteOps())
		}
		writes += n
	}
	mu.Unlock()
	if writes < 2 {
		t.Errorf("%d writes timed for two writes: %v", writes, seen)
	}
	db.SetWriteObserver(nil)
	if _, _, err := db.AddSource(ctx, "https://other.example/", storetest.T0); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	after := 0
	for _, n := range seen {
		after += n
	}
	if after != writes {
		t.Errorf("%d writes timed after the observer was removed", after-writes)
	}
}
