package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// TestDBBackupAndVacuum: a backup of a database in use opens and holds the
// same sources; an existing target and a missing database are refused;
// vacuum runs; PostgreSQL is pointed at pg_dump.
func TestDBBackupAndVacuum(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "https://a.example/", "https://b.example/"); code != 0 {
		t.Fatalf("sources add: %s", errOut)
	}
	copyPath := filepath.Join(dir, "copy.db")
	out, errOut, code := runCLI(t, nil, env, "db", "backup", copyPath)
	if code != 0 || !strings.Contains(out, "backed up") {
		t.Fatalf("backup: %d %q %q", code, out, errOut)
	}
	c, err := sqlite.Open(context.Background(), copyPath)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := c.EachSource(context.Background(), func(s store.Source) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if n != 2 {
		t.Errorf("the copy holds %d sources, want 2", n)
	}
	if _, errOut, code := runCLI(t, nil, env, "db", "backup", copyPath); code == 0 {
		t.Errorf("an existing target was overwritten (%q)", errOut)
	}
	if out, errOut, code := runCLI(t, nil, env, "db", "vacuum"); code != 0 || !strings.Contains(out, "vacuumed") {
		t.Errorf("vacuum: %d %q %q", code, out, errOut)
	}
	missing := map[string]string{"CORPUSBOT_DB": filepath.Join(dir, "typo.db")}
	if _, errOut, code := runCLI(t, nil, missing, "db", "vacuum"); code == 0 || !strings.Contains(errOut, "no database at") {
		t.Errorf("a missing database: %d %q", code, errOut)
	}
	pg := map[string]string{"CORPUSBOT_DB": "postgres://x@127.0.0.1/db"}
	if _, errOut, code := runCLI(t, nil, pg, "db", "backup", copyPath+"2"); code != exitUsage || !strings.Contains(errOut, "pg_dump") {
		t.Errorf("PostgreSQL: %d %q", code, errOut)
	}
}

// TestVersion: `version` and `--version` print one line naming the binary
// and its Go release.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, errOut, code := runCLI(t, nil, nil, args...)
		if code != 0 || !strings.HasPrefix(out, "corpusbot ") || !strings.Contains(out, "go1.") || strings.Count(out, "\n") != 1 {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
}
