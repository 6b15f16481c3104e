package storetest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/model"
)

// The site-data suite's answers are held to golden files: one per test,
// under testdata/sitedata, a line per call ("name<TAB>JSON answer"), in
// the order the test makes them. Both backends answer to the same files.
// CORPUSBOT_UPDATE_GOLDEN=1 rewrites them from the backend under test;
// read the diff before committing one.

// golden records the answers of one test.
type golden struct {
	lines []string
}

// record adds one call's answer (or its error, by kind: only "not found"
// is a property of the data; any other error fails the test anyway).
func (g *golden) record(t *testing.T, name string, answer any, err error) {
	t.Helper()
	switch {
	case errors.Is(err, model.ErrNotFound):
		g.lines = append(g.lines, name+"\terror: not found")
	case err != nil:
		t.Errorf("%s: %v", name, err)
		g.lines = append(g.lines, name+"\terror")
	default:
		b, jerr := json.Marshal(answer)
		if jerr != nil {
			t.Fatalf("%s: %v", name, jerr)
		}
		g.lines = append(g.lines, name+"\t"+string(b))
	}
}

// goldenDir is storetest's testdata/sitedata, wherever the test runs from
// (the suite runs in each backend's package directory).
func goldenDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "sitedata")
}

// check compares the recorded answers with the test's golden file, line
// by line, reporting the first lines that differ.
func (g *golden) check(t *testing.T) {
	t.Helper()
	name := strings.ReplaceAll(t.Name(), "/", "_")
	if i := strings.Index(name, "_"); i >= 0 {
		name = name[i+1:] // the backend's test name is not part of it
	}
	path := filepath.Join(goldenDir(), name+".golden")
	got := strings.Join(g.lines, "\n") + "\n"
	if os.Getenv("CORPUSBOT_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (CORPUSBOT_UPDATE_GOLDEN=1 writes it)", err)
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	bad := 0
	for i := 0; i < max(len(gl), len(wl)) && bad < 5; i++ {
		var a, b string
		if i < len(gl) {
			a = gl[i]
		}
		if i < len(wl) {
			b = wl[i]
		}
		if a != b {
			bad++
			t.Errorf("%s line %d:\n got: %s\nwant: %s", filepath.Base(path), i+1, a, b)
		}
	}
}
