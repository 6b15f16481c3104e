package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportOutputFlags: --help documents --force and what --output
// refuses; --force without --output is a usage error; a refusal is one
// line naming the file and what to do, exit 1.
func TestExportOutputFlags(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"CORPUSBOT_DB": filepath.Join(dir, "c.db")}
	out, _, code := runCLI(t, nil, env, "export", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"--force", "temporary name", "symbolic link", "-wal"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if _, errOut, code := runCLI(t, nil, env, "export", "--force"); code != exitUsage || !strings.Contains(errOut, "--output") {
		t.Errorf("--force alone: %d %q, want a usage error", code, errOut)
	}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "https://a.example/"); code != 0 {
		t.Fatal(errOut)
	}
	existing := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(existing, []byte("KEEP"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target string
		want   string
	}{
		{existing, "--output " + existing + " already exists: --force replaces it"},
		{filepath.Join(dir, "c.db"), "--output " + filepath.Join(dir, "c.db") + " is the database or one of its files: it is never overwritten"},
		{dir + "/x/../c.db-wal", "is the database or one of its files (" + filepath.Join(dir, "c.db-wal") + ")"},
		{dir, "is a directory"},
	} {
		_, errOut, code := runCLI(t, nil, env, "export", "--sources", "--output", tc.target)
		if code != exitFailure || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--output %s: %d %q, want exit 1 and %q", tc.target, code, errOut, tc.want)
		}
	}
	if got, _ := os.ReadFile(existing); string(got) != "KEEP" {
		t.Errorf("the existing file became %q", got)
	}
	if _, errOut, code := runCLI(t, nil, env, "export", "--sources", "--output", existing, "--force"); code != 0 {
		t.Errorf("--force: %d %q", code, errOut)
	}
	if got, _ := os.ReadFile(existing); !strings.Contains(string(got), `"source":"https://a.example/"`) {
		t.Errorf("--force left %q", got)
	}
}
