package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

func TestSourcesAddIdempotentAndExport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	out, errOut, code := runCLI(t, nil, env, "sources", "add", "https://a.example", "https://b.example/")
	if code != 0 || out != "added https://a.example/\nadded https://b.example/\n" {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	out, _, code = runCLI(t, nil, env, "sources:add", "https://a.example/")
	if code != 0 || out != "known https://a.example/\n" {
		t.Fatalf("re-add: %d %q", code, out)
	}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "ftp://x"); code != exitUsage || errOut == "" {
		t.Fatalf("bad URL accepted: %d", code)
	}

	// Fill the store as a crawl would, then export.
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	src, _, _ := st.AddSource(ctx, "https://a.example/", time.Now())
	pub := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st.AddPosts(ctx, []store.NewPost{{URL: "https://a.example/1", SourceID: src.ID, Title: "One", Published: pub, Text: "full"}})
	st.AddPosts(ctx, []store.NewPost{{URL: "https://a.example/2", SourceID: src.ID, Title: "Two"}})
	st.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: "https://a.example/feed"})
	st.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: "https://a.example/sitemap.xml", Via: model.ViaRobots})
	home, _ := url.Parse("https://a.example/")
	st.PutOrigin(ctx, model.Origin{Origin: model.OriginOf(home), Status: 200, State: "parsed", Checked: pub})
	st.PutRefusal(ctx, "b.example", model.RefusalState{Refused: true})
	st.Close()

	out, errOut, code = runCLI(t, nil, env, "export")
	if code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%q", out)
	}
	// updated is the wall clock of the record's change: checked for its form.
	first := regexp.MustCompile(`"updated":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`).ReplaceAllString(lines[0], `"updated":"T"`)
	if first != `{"url":"https://a.example/1","source":"https://a.example/","title":"One","published":"2026-01-02T03:04:05Z","lastmod":"","state":"indexed","text_from":"feed","text_bytes":4,"citations":[],`+
		`"author":"","language":"","description":"","site_name":"","tags":[],"license":"","image":"","duplicate_of":"","updated":"T"}` {
		t.Errorf("post line: %s", lines[0])
	}
	wantKeys(t, lines[1], append([]string{"url", "source", "title", "published", "lastmod", "state", "text_from", "text_bytes", "citations"}, recordKeys...)...)

	out, _, code = runCLI(t, nil, env, "export", "--sources")
	if code != 0 {
		t.Fatal(code)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != `{"source":"https://a.example/","state":"pending","error":"","robots":{"status":200,"state":"parsed"},"refusal":false,"feeds":[{"url":"https://a.example/feed","state":"active","catalogue":"none"}],"sitemaps":[{"url":"https://a.example/sitemap.xml","state":"active","via":"robots","kind":"unknown","note":""}],`+
		`"skipped":{"pages":0,"taxonomies":0,"authors":0,"other":0},"sitemaps_skipped":{"pages":0,"taxonomies":0,"authors":0,"other":0}}` {
		t.Errorf("source line: %s", lines[0])
	}
	if !strings.Contains(lines[1], `"source":"https://b.example/","state":"refused",`) || !strings.Contains(lines[1], `"refusal":true`) {
		t.Errorf("refused site: %s", lines[1])
	}
}

// recordKeys are the post record's keys on every post line.
var recordKeys = []string{"author", "language", "description", "site_name", "tags", "license", "image", "duplicate_of", "updated"}

func wantKeys(t *testing.T, line string, keys ...string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("keys %v, want %v", got, keys)
	}
}

func TestRunOnceIdle(t *testing.T) {
	env := map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "c.db")}
	if _, errOut, code := runCLI(t, nil, env, "run", "--once"); code != 0 {
		t.Fatalf("run --once on an empty store: %d %s", code, errOut)
	}
	for _, args := range [][]string{{"articles", "fetch", "--limit", "5"}, {"articles:fetch", "--limit", "5"},
		{"sitemaps", "discover", "--truncated", "--limit", "5"}, {"sitemaps:fetch", "--limit", "5"}} {
		if _, errOut, code := runCLI(t, nil, env, args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
	}
	if _, _, code := runCLI(t, nil, env, "articles", "fetch", "--limit", "0"); code != exitUsage {
		t.Fatalf("--limit 0: %d", code)
	}
	if out, _, code := runCLI(t, nil, env, "export", "--help"); code != 0 || !strings.Contains(out, "Usage: corpusbot export") {
		t.Fatalf("help: %d %q", code, out)
	}
}

func TestProgressLine(t *testing.T) {
	var b strings.Builder
	h := newProgressHandler(&b)
	log := slog.New(h)
	log.Info("feed read", "feed", "https://a.example/feed", "new", 3)
	log.Warn("job failed", "err", "boom")
	got := b.String()
	if got != "\r\033[Kfeed read feed=https://a.example/feed new=3\r\033[KWARN job failed err=boom\n" {
		t.Errorf("%q", got)
	}
	if isTerminal(&b) {
		t.Error("a buffer is not a terminal")
	}
}
