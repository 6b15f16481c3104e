package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"corpus.blog/corpusbot/internal/model"
)

// TestPostDue: PostDue agrees with Post on the ID and Due of the post a
// URL names, and on a URL that names none.
func TestPostDue(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fill(t, db, 1, 2)
	if _, err := db.Writer().ExecContext(ctx, `UPDATE posts SET due = 1 WHERE url LIKE '%/1'`); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://blog1.example/post/0", "https://blog1.example/post/1", "HTTPS://BLOG1.example/post/1"} {
		p, err := db.Post(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		id, due, err := db.PostDue(ctx, u)
		if err != nil || id != p.ID || due != p.Due {
			t.Errorf("PostDue(%s) = %d, %v, %v; Post: %d, %v", u, id, due, err, p.ID, p.Due)
		}
	}
	if _, _, err := db.PostDue(ctx, "https://blog1.example/post/9"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("PostDue of no post: %v", err)
	}
}
