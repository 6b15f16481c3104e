package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// Open a SQLite database, add a source, record two posts a feed named and
// the page of one, then read the posts back. The same calls work on
// PostgreSQL (postgres.Open): the SQL is written once, in this package.
func ExampleDB() {
	dir, _ := os.MkdirTemp("", "store-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

	db, err := sqlite.Open(ctx, filepath.Join(dir, "corpus.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	src, added, _ := db.AddSource(ctx, "https://Blog.Example/", now)
	fmt.Println(src.URL, src.Site, added)

	db.AddPosts(ctx, []store.NewPost{
		{URL: "https://blog.example/first", SourceID: src.ID, Title: "First", Seen: now},
		{URL: "https://blog.example/second", SourceID: src.ID, Title: "Second", Seen: now},
	})
	first, _ := db.Post(ctx, "https://blog.example/first")
	db.SavePage(ctx, store.PageResult{PostID: first.ID, State: model.PostIndexed, Text: "The first post.",
		TextFrom: model.TextFromPage, Fetched: now})

	db.EachPost(ctx, func(p store.Post) error {
		fmt.Printf("%s %q %s %q\n", p.URL, p.Title, p.State, p.Text)
		return nil
	})
	// Output:
	// https://blog.example/ blog.example true
	// https://blog.example/first "First" indexed "The first post."
	// https://blog.example/second "Second" pending ""
}
