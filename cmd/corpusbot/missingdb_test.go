package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingDatabaseRefused: the commands that only read a database
// refuse a SQLite path with no file (a mistyped --db, or a folder
// with none) in one line saying what to do, exit 1 and leave no file
// behind; the commands that fill a database create it, and so does serve
// (TestServeCreatesDatabase).
func TestMissingDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "corpusbt.db")
	want := "no database at " + typo + ": run `corpusbot sources add` first, or pass --db"
	parquet := filepath.Join(dir, "out.parquet")
	for _, args := range [][]string{
		{"export"},
		{"export", "--sources"},
		{"export", "--text"},
		{"export", "--format", "parquet", "--output", parquet},
		{"sources", "retry", "blog.example"},
		{"db", "vacuum"},
		{"articles", "fetch", "--limit", "5"},
		{"sitemaps", "discover", "--limit", "5"},
		{"sitemaps", "fetch", "--limit", "5"},
	} {
		for _, how := range []struct {
			name string
			env  map[string]string
			args []string
		}{
			{"--db", nil, append(append([]string(nil), args...), "--db", typo)},
			{"CORPUSBOT_DB", map[string]string{"CORPUSBOT_DB": typo}, args},
		} {
			out, errOut, code := runCLI(t, nil, how.env, how.args...)
			if code != exitFailure || out != "" || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v (%s): %d %q %q, want exit 1 and %q", args, how.name, code, out, errOut, want)
			}
			if _, err := os.Stat(typo); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%v (%s) created %s", args, how.name, typo)
			}
		}
	}
	if _, err := os.Stat(parquet); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused export left %s", parquet)
	}

	// The default path is named as it is configured.
	t.Chdir(dir)
	if _, errOut, code := runCLI(t, nil, nil, "export"); code != exitFailure ||
		!strings.Contains(errOut, "no database at ./corpusbot.db: run `corpusbot sources add` first, or pass --db") {
		t.Errorf("export in an empty folder: %d %q", code, errOut)
	}
	if _, err := os.Stat("corpusbot.db"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("export in an empty folder created ./corpusbot.db")
	}

	// sources add creates the database; export then reads it.
	made := filepath.Join(dir, "made.db")
	env := map[string]string{"CORPUSBOT_DB": made}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "https://a.example/"); code != 0 {
		t.Fatalf("sources add: %d %q", code, errOut)
	}
	if out, errOut, code := runCLI(t, nil, env, "export", "--sources"); code != 0 || !strings.Contains(out, `"source":"https://a.example/"`) {
		t.Errorf("export after sources add: %d %q %q", code, out, errOut)
	}
}

// TestRunCreatesDatabase: run --once on a path with no database creates it
// and finds nothing to do, as before.
func TestRunCreatesDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fresh.db")
	if _, errOut, code := runCLI(t, nil, map[string]string{"CORPUSBOT_DB": db}, "run", "--once"); code != 0 {
		t.Fatalf("run --once on a fresh path: %d %q", code, errOut)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("run --once made no database: %v", err)
	}
}

// TestMissingDatabasePostgresNotChecked: a postgres:// URL is never taken
// for a file; it fails as a connection does.
func TestMissingDatabasePostgresNotChecked(t *testing.T) {
	env := map[string]string{"CORPUSBOT_DB": "postgres://corpusbot@127.0.0.1:1/nothing?connect_timeout=5"}
	_, errOut, code := runCLI(t, nil, env, "export")
	if code == 0 || strings.Contains(errOut, "no database at") {
		t.Errorf("export from an unreachable PostgreSQL: %d %q", code, errOut)
	}
}
