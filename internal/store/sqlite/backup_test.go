package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/safefile"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/store/storetest"
)

// counts is what a copy must agree on with the original.
func counts(t *testing.T, db *sqlite.DB) (sources, posts int) {
	t.Helper()
	ctx := context.Background()
	if err := db.EachSource(ctx, func(store.Source) error { sources++; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.EachPost(ctx, func(store.Post) error { posts++; return nil }); err != nil {
		t.Fatal(err)
	}
	return sources, posts
}

func filled(t *testing.T, dir string, sources, postsEach int) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "live.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for s := range sources {
		src, _, err := db.AddSource(ctx, fmt.Sprintf("https://site%d.example/", s), storetest.T0)
		if err != nil {
			t.Fatal(err)
		}
		var posts []store.NewPost
		for p := range postsEach {
			posts = append(posts, store.NewPost{URL: fmt.Sprintf("https://site%d.example/p/%d", s, p), SourceID: src.ID, Title: "a post"})
		}
		if _, err := db.AddPosts(ctx, posts); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestBackupCopiesEverything(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live := filled(t, dir, 3, 40)
	wantSources, wantPosts := counts(t, live)
	if wantSources != 3 || wantPosts != 120 {
		t.Fatalf("filled store has %d sources, %d posts", wantSources, wantPosts)
	}
	copyPath := filepath.Join(dir, "backup.db")
	if err := sqlite.Backup(ctx, live.Writer(), copyPath); err != nil {
		t.Fatal(err)
	}
	// The live store goes on; the copy is the snapshot.
	if _, _, err := live.AddSource(ctx, "https://later.example/", storetest.T0); err != nil {
		t.Fatal(err)
	}
	cp, err := sqlite.Open(ctx, copyPath)
	if err != nil {
		t.Fatalf("open the copy: %v", err)
	}
	defer cp.Close()
	if s, p := counts(t, cp); s != wantSources || p != wantPosts {
		t.Errorf("copy has %d sources, %d posts; want %d, %d", s, p, wantSources, wantPosts)
	}
	var check string
	if err := cp.Writer().QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check of the copy: %q, %v", check, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestBackupRefusesAnExistingFile: last night's copy, a symbolic link and
// the live database's own files (absent ones too) are refused, and left
// as they were.
func TestBackupRefusesAnExistingFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live := filled(t, dir, 1, 1)
	if err := os.WriteFile(filepath.Join(dir, "old-backup.db"), []byte("last night's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("old-backup.db", filepath.Join(dir, "link.db")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want error
	}{
		{"old-backup.db", fs.ErrExist},
		{"link.db", safefile.ErrSymlink},
		{"live.db", safefile.ErrProtected},
		{"live.db-wal", safefile.ErrProtected},
		{"live.db-shm", safefile.ErrProtected},
		{"live.db-journal", safefile.ErrProtected},
	} {
		path := filepath.Join(dir, tc.name)
		before, beforeErr := os.ReadFile(path)
		err := sqlite.Backup(ctx, live.Writer(), path)
		if !errors.Is(err, tc.want) {
			t.Errorf("backup onto %s: err = %v, want %v", tc.name, err, tc.want)
		}
		after, afterErr := os.ReadFile(path)
		if string(after) != string(before) || (beforeErr == nil) != (afterErr == nil) {
			t.Errorf("backup onto %s changed it", tc.name)
		}
	}
	if s, _ := counts(t, live); s != 1 {
		t.Errorf("live store has %d sources after the refused backups", s)
	}
}

// TestFiles: the database's companions, under its name and under the
// name a symbolic link resolves to.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	if err := os.WriteFile(real, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink("real.db", link); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(sqlite.Files(link), " ")
	want := strings.Join([]string{link, link + "-wal", link + "-shm", link + "-journal", real, real + "-wal", real + "-shm", real + "-journal"}, " ")
	if got != want {
		t.Errorf("Files(link):\n got %s\nwant %s", got, want)
	}
	if got := sqlite.Files("c.db"); strings.Join(got, " ") != "c.db c.db-wal c.db-shm c.db-journal" {
		t.Errorf("Files(c.db) = %v", got)
	}
}

func TestBackupIntoMissingDirectory(t *testing.T) {
	live := filled(t, t.TempDir(), 1, 1)
	err := sqlite.Backup(context.Background(), live.Writer(), filepath.Join(t.TempDir(), "no", "such", "dir", "b.db"))
	if err == nil {
		t.Error("backup into a missing directory succeeded")
	}
}

func TestBackupCancelled(t *testing.T) {
	dir := t.TempDir()
	live := filled(t, dir, 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(dir, "b.db")
	if err := sqlite.Backup(ctx, live.Writer(), path); err == nil {
		t.Error("a cancelled backup succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "b.db" || strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a cancelled backup left %s", e.Name())
		}
	}
}

func TestVacuumShrinksAndKeeps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live := filled(t, dir, 2, 100)
	w := live.Writer()
	// Free many pages: a table of padding, filled and emptied.
	if _, err := w.ExecContext(ctx, `CREATE TABLE padding (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 400)
		INSERT INTO padding SELECT randomblob(2000) FROM n`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExecContext(ctx, `DROP TABLE padding`); err != nil {
		t.Fatal(err)
	}
	pages := func() (total, free int64) {
		t.Helper()
		if err := w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&total); err != nil {
			t.Fatal(err)
		}
		if err := w.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
			t.Fatal(err)
		}
		return total, free
	}
	before, freeBefore := pages()
	if freeBefore < 100 {
		t.Fatalf("only %d free pages to reclaim", freeBefore)
	}
	if err := sqlite.Vacuum(ctx, w); err != nil {
		t.Fatal(err)
	}
	after, freeAfter := pages()
	if freeAfter != 0 || after > before-freeBefore+1 {
		t.Errorf("pages %d (%d free) -> %d (%d free)", before, freeBefore, after, freeAfter)
	}
	if st, err := os.Stat(filepath.Join(dir, "live.db-wal")); err == nil && st.Size() != 0 {
		t.Errorf("WAL left at %d bytes after the vacuum's checkpoint", st.Size())
	}
	if s, p := counts(t, live); s != 2 || p != 200 {
		t.Errorf("after vacuum: %d sources, %d posts", s, p)
	}
}
