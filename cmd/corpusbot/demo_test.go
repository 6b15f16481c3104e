package main

import (
	"context"
	"corpus.blog/corpusbot/internal/binarytest"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoCommand runs `corpusbot demo` on a small population: the report
// comes out, the database is kept where --db said, and it is refused the
// second time (the demo starts from an empty store).
func TestDemoCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	out, errOut, code := runCLI(t, nil, nil, "demo", "--db", db, "--days", "2", "--scale", "0.15")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"corpusbot demo: 39 simulated blogs, 2 simulated days", "Day 2:",
		"requests per new-or-modified post", "fewer requests", "0 violations"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("database not kept: %v", err)
	}
	_, errOut, code = runCLI(t, nil, nil, "demo", "--db", db, "--days", "1")
	if code != exitFailure || !strings.Contains(errOut, "already exists") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("existing database: exit %d, %q", code, errOut)
	}
}

func TestDemoCommandUsage(t *testing.T) {
	for _, args := range [][]string{{"demo", "extra"}, {"demo", "--days", "0"}, {"demo", "--scale", "-1"}, {"demo", "--nope"}} {
		if _, errOut, code := runCLI(t, nil, nil, args...); code != exitUsage || errOut == "" {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	out, _, code := runCLI(t, nil, nil, "demo", "--help")
	if code != 0 || !strings.Contains(out, "--serve") {
		t.Errorf("--help: %d %q", code, out)
	}
}

// TestDemoServe: the public site serves the demo's crawl, its coverage
// and sources pages answering from the demo's database.
func TestDemoServe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	if out, errOut, code := runCLI(t, nil, nil, "demo", "--days", "1", "--scale", "0.1", "--db", db); code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &binarytest.SyncBuffer{}
	done := make(chan error, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- serveDemo(ctx, environment{stdout: out, stderr: io.Discard}, db, ln) }()
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`http://[0-9.:]+/`).FindString(out.String()); m != "" {
			base = m
		}
	}
	if base == "" {
		t.Fatalf("no address printed: %q", out.String())
	}
	for _, path := range []string{"coverage", "sources", "sources/hugo-1.example", "crawler"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "corpusbot") {
			t.Errorf("/%s: %d", path, resp.StatusCode)
		}
		if path == "sources" && !strings.Contains(string(body), "hugo-1.example") {
			t.Errorf("/sources does not list the demo's blogs")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveDemo: %v", err)
	}
}
