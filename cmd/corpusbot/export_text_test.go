package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/corpusout"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// crawledStore crawls the blogs of nonpostsDir on the simulated web into a
// SQLite file and returns its path, checking the servers saw a polite crawl.
func crawledStore(t *testing.T) string {
	t.Helper()
	dbPath := filepath.Join(t.TempDir(), "c.db")
	clock := simweb.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	web := simweb.New(simweb.WithClock(clock.Now))
	defer web.Close()
	hosts := serveNonpostBlogs(t, web)

	s := config.Defaults()
	s.DB = dbPath
	c := newSimCrawl(t, web, clock, s, nil)
	for _, h := range hosts {
		c.add("http://" + h + "/")
	}
	c.once()
	c.polite()
	c.close()
	return dbPath
}

// storedPosts reads every post of the store at dbPath, by URL.
func storedPosts(t *testing.T, dbPath string) map[string]store.Post {
	t.Helper()
	ctx := context.Background()
	s := config.Defaults()
	s.DB = dbPath
	st, err := app.OpenStore(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	posts := map[string]store.Post{}
	if err := st.EachPost(ctx, func(p store.Post) error { posts[p.URL] = p; return nil }); err != nil {
		t.Fatal(err)
	}
	// EachPost and Post are two reads: check they agree on the text.
	for u, p := range posts {
		one, err := st.Post(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if one.Text != p.Text {
			t.Fatalf("%s: Post and EachPost disagree on the text", u)
		}
	}
	return posts
}

// TestExportTextRoundTrip crawls a simulated web, then checks that
// `export --text` gives every post once with the text the store holds, and
// that without --text the lines are the contract's, the same values less
// the added fields.
func TestExportTextRoundTrip(t *testing.T) {
	dbPath := crawledStore(t)
	posts := storedPosts(t, dbPath)
	env := map[string]string{"CORPUSBOT_DB": dbPath}

	out, errOut, code := runCLI(t, nil, env, "export", "--text")
	if code != 0 {
		t.Fatalf("export --text: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(posts) {
		t.Fatalf("%d lines for %d posts", len(lines), len(posts))
	}
	indexed := 0
	seen := map[string]bool{}
	exported := map[string]corpusout.Post{}
	for _, raw := range lines {
		wantKeys(t, raw, append([]string{"url", "source", "site", "title", "published", "lastmod", "first_seen",
			"state", "text_from", "text_bytes", "citations", "text"}, recordKeys...)...)
		var got corpusout.Post
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatal(err)
		}
		p, ok := posts[got.URL]
		if !ok || seen[got.URL] {
			t.Fatalf("%s exported but not stored, or twice", got.URL)
		}
		seen[got.URL] = true
		exported[got.URL] = got
		if got.Text != p.Text {
			t.Errorf("%s: exported text differs from the stored text (%d bytes, want %d)", got.URL, len(got.Text), len(p.Text))
		}
		if got.TextBytes != len(p.Text) || got.State != p.State || got.TextFrom != p.TextFrom || got.Title != p.Title {
			t.Errorf("%s: exported %+v, stored %+v", got.URL, got, p)
		}
		// Every post of a crawl was first seen by it, at its clock.
		if got.FirstSeen == "" || got.FirstSeen != exportTime(p.FirstSeen) {
			t.Errorf("%s: first_seen %q, stored %v", got.URL, got.FirstSeen, p.FirstSeen)
		}
		if got.Site != model.SiteOfURL(p.URL) || got.Site == "" {
			t.Errorf("%s: site %q", got.URL, got.Site)
		}
		if got.Citations == nil {
			t.Errorf("%s: citations null, want a list", got.URL)
		}
		if p.State == model.PostIndexed && p.Text != "" {
			indexed++
		}
	}
	if indexed < 5 {
		t.Fatalf("only %d indexed posts with text: the crawl did not index enough to test", indexed)
	}

	// Without --text: the contract's line, the same values, no text.
	out, errOut, code = runCLI(t, nil, env, "export")
	if code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	plain := strings.Split(strings.TrimSpace(out), "\n")
	if len(plain) != len(lines) {
		t.Fatalf("%d plain lines, %d with text", len(plain), len(lines))
	}
	for _, raw := range plain {
		wantKeys(t, raw, append([]string{"url", "source", "title", "published", "lastmod", "state", "text_from", "text_bytes", "citations"}, recordKeys...)...)
		var got corpusout.Post
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatal(err)
		}
		want := exported[got.URL]
		want.Site, want.FirstSeen, want.Text = "", "", ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("plain line differs from the --text one:\n got %+v\nwant %+v", got, want)
		}
	}
}

// exportedRow is a row of the exported Parquet file, as a reader who knows
// only the README's schema would declare it.
type exportedRow struct {
	URL         string     `parquet:"url"`
	Source      string     `parquet:"source"`
	Site        string     `parquet:"site"`
	Title       string     `parquet:"title"`
	Published   *time.Time `parquet:"published,optional,timestamp(millisecond:utc)"`
	Lastmod     *time.Time `parquet:"lastmod,optional,timestamp(millisecond:utc)"`
	FirstSeen   *time.Time `parquet:"first_seen,optional,timestamp(millisecond:utc)"`
	State       string     `parquet:"state"`
	TextFrom    string     `parquet:"text_from"`
	TextBytes   int64      `parquet:"text_bytes"`
	Citations   []string   `parquet:"citations,list"`
	Author      string     `parquet:"author"`
	Language    string     `parquet:"language"`
	Description string     `parquet:"description"`
	SiteName    string     `parquet:"site_name"`
	Tags        []string   `parquet:"tags,list"`
	License     string     `parquet:"license"`
	Image       string     `parquet:"image"`
	DuplicateOf string     `parquet:"duplicate_of"`
	Updated     *time.Time `parquet:"updated,optional,timestamp(millisecond:utc)"`
	Text        string     `parquet:"text"`
}

// TestExportParquet checks that `export --format parquet` writes, to a file
// or to standard output, the rows `export --text` prints as lines.
func TestExportParquet(t *testing.T) {
	dbPath := crawledStore(t)
	env := map[string]string{"CORPUSBOT_DB": dbPath}
	out, errOut, code := runCLI(t, nil, env, "export", "--text")
	if code != 0 {
		t.Fatalf("export --text: %d %s", code, errOut)
	}
	var want []corpusout.Post
	for _, raw := range strings.Split(strings.TrimSpace(out), "\n") {
		var p corpusout.Post
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}

	file := filepath.Join(t.TempDir(), "corpus.parquet")
	if out, errOut, code := runCLI(t, nil, env, "export", "--format", "parquet", "--output", file); code != 0 || out != "" {
		t.Fatalf("export --format parquet --output: %d %q %s", code, out, errOut)
	}
	rows, err := parquet.ReadFile[exportedRow](file)
	if err != nil {
		t.Fatal(err)
	}
	comparePostRows(t, rows, want)

	out, errOut, code = runCLI(t, nil, env, "export", "--format", "parquet")
	if code != 0 {
		t.Fatalf("export --format parquet to stdout: %d %s", code, errOut)
	}
	rows, err = parquet.Read[exportedRow](strings.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatal(err)
	}
	comparePostRows(t, rows, want)
}

func comparePostRows(t *testing.T, rows []exportedRow, want []corpusout.Post) {
	t.Helper()
	if len(rows) != len(want) {
		t.Fatalf("%d rows for %d posts", len(rows), len(want))
	}
	date := func(tm *time.Time) string {
		if tm == nil {
			return ""
		}
		return tm.UTC().Format(time.RFC3339)
	}
	for i, r := range rows {
		got := corpusout.Post{URL: r.URL, Source: r.Source, Site: r.Site, Title: r.Title,
			Published: date(r.Published), Lastmod: date(r.Lastmod), FirstSeen: date(r.FirstSeen), State: r.State,
			TextFrom: r.TextFrom, TextBytes: int(r.TextBytes), Citations: r.Citations, Text: r.Text,
			Author: r.Author, Language: r.Language, Description: r.Description, SiteName: r.SiteName, Tags: r.Tags,
			License: r.License, Image: r.Image, DuplicateOf: r.DuplicateOf, Updated: date(r.Updated)}
		if got.Citations == nil {
			got.Citations = []string{}
		}
		if got.Tags == nil {
			got.Tags = []string{}
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got, want[i])
		}
	}
}

func TestExportFlags(t *testing.T) {
	env := map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "c.db")}
	for _, args := range [][]string{
		{"export", "--format", "csv"},
		{"export", "--sources", "--text"},
		{"export", "--sources", "--format", "parquet"},
	} {
		if _, errOut, code := runCLI(t, nil, env, args...); code != exitUsage || errOut == "" {
			t.Errorf("%v: %d %q, want a usage error", args, code, errOut)
		}
	}
	out, _, code := runCLI(t, nil, env, "export", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"--text", "--format", "jsonl", "parquet", "--output", "docs/corpus.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if strings.Contains(out, "Text is never printed") {
		t.Error("help still says text is never printed")
	}
	// An export that fails creates no file: the store is opened before it
	// (here it cannot be, its directory does not exist).
	file := filepath.Join(t.TempDir(), "out.parquet")
	bad := map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "no", "such", "c.db")}
	if _, _, code := runCLI(t, nil, bad, "export", "--format", "parquet", "--output", file); code == 0 {
		t.Error("export from a store that cannot be opened succeeded")
	}
	if matches, _ := filepath.Glob(file + "*"); len(matches) != 0 {
		t.Errorf("failed export left %v", matches)
	}
}

// TestExportFailureLeavesNoFile breaks the last post's stored citations, so
// that the export fails after it has written rows: the non-zero exit comes
// with no file, not with a Parquet file cut short.
func TestExportFailureLeavesNoFile(t *testing.T) {
	dbPath := crawledStore(t)
	raw, err := sql.Open("sqlite", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE posts SET citations = 'not json' WHERE id = (SELECT max(id) FROM posts)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	env := map[string]string{"CORPUSBOT_DB": dbPath}
	for _, format := range []string{"parquet", "jsonl"} {
		file := filepath.Join(t.TempDir(), "corpus."+format)
		_, errOut, code := runCLI(t, nil, env, "export", "--text", "--format", format, "--output", file)
		if code == 0 || !strings.Contains(errOut, "citations") {
			t.Errorf("%s: export of a broken post: %d %q, want a failure naming it", format, code, errOut)
		}
		if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: a failed export left %s (%v)", format, file, err)
		}
	}
}
