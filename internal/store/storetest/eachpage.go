package storetest

import (
	"fmt"
	"testing"

	"corpus.blog/corpusbot/internal/store"
)

// testEachPaged: EachPost and EachSource read a page at a time, so they
// must still give every row once, in ID order, past the page boundaries,
// with the store written between pages — a post saved and another added
// while an export runs — and stop at fn's error.
func testEachPaged(t *testing.T, s *store.DB) {
	src, _, err := s.AddSource(bg, "https://a.example/", T0)
	must(t, err)
	const n = 700 // more than two pages
	var posts []store.NewPost
	for i := range n {
		posts = append(posts, store.NewPost{URL: fmt.Sprintf("https://a.example/p/%d", i), SourceID: src.ID, Seen: T0})
	}
	if _, err := s.AddPosts(bg, posts); err != nil {
		t.Fatal(err)
	}
	var seen []int64
	err = s.EachPost(bg, func(p store.Post) error {
		if len(seen) == 300 { // the crawl writes on while the export reads
			if _, err := s.AddPosts(bg, []store.NewPost{{URL: "https://a.example/late", SourceID: src.ID, Seen: T0}}); err != nil {
				return err
			}
			late, err := s.Post(bg, "https://a.example/p/600")
			if err != nil {
				return err
			}
			if err := s.SavePage(bg, store.PageResult{PostID: late.ID, State: "indexed", Fetched: T0}); err != nil {
				return err
			}
		}
		seen = append(seen, p.ID)
		return nil
	})
	must(t, err)
	if len(seen) != n+1 {
		t.Fatalf("EachPost gave %d posts, want %d (the one added while it read included)", len(seen), n+1)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("EachPost out of order at %d: %d after %d", i, seen[i], seen[i-1])
		}
	}
	stop := fmt.Errorf("enough")
	calls := 0
	if err := s.EachPost(bg, func(store.Post) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("EachPost with fn failing: %v after %d calls, want fn's error after 1", err, calls)
	}
	for i := range 300 {
		if _, _, err := s.AddSource(bg, fmt.Sprintf("https://s%d.example/", i), T0); err != nil {
			t.Fatal(err)
		}
	}
	sources := 0
	must(t, s.EachSource(bg, func(store.Source) error { sources++; return nil }))
	if sources != 301 {
		t.Errorf("EachSource gave %d sources, want 301", sources)
	}
}
