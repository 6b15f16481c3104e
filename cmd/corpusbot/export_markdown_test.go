package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"

	"github.com/parquet-go/parquet-go"
)

// TestExportMarkdown: --text-format markdown gives the Markdown the
// extractor stored, the plain text escaped for a post stored without one
// (before it was kept, or from a feed), no text for a removed post, in
// JSON lines and in Parquet; plain gives the plain text.
func TestExportMarkdown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	src, _, _ := st.AddSource(ctx, "https://md.example/", time.Now())
	st.AddPosts(ctx, []store.NewPost{{URL: "https://md.example/feed", SourceID: src.ID, Text: "# From the feed *as is*"}})
	st.AddPosts(ctx, []store.NewPost{{URL: "https://md.example/page", SourceID: src.ID}, {URL: "https://md.example/old", SourceID: src.ID},
		{URL: "https://md.example/gone", SourceID: src.ID}})
	save := func(u, state, text, md string) {
		p, err := st.Post(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SavePage(ctx, store.PageResult{PostID: p.ID, State: state, Text: text, Markdown: md, TextFrom: model.TextFromPage, Fetched: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	const pageText, pageMD = "Notes\n\nOne *item*\n\ncode `x`", "## Notes\n\n- One \\*item\\*\n\n```\ncode `x`\n```"
	save("https://md.example/page", model.PostIndexed, pageText, pageMD)
	save("https://md.example/old", model.PostIndexed, "1. Old\n\n- text", "")
	save("https://md.example/gone", model.PostIndexed, "Gone", "Gone")
	save("https://md.example/gone", model.PostRemoved, "Gone", "")
	st.Close()

	want := map[string]string{
		"https://md.example/page": pageMD,
		"https://md.example/old":  "1\\. Old\n\n\\- text",
		"https://md.example/feed": "\\# From the feed \\*as is\\*",
		"https://md.example/gone": "",
	}
	plain := map[string]string{"https://md.example/page": pageText, "https://md.example/old": "1. Old\n\n- text",
		"https://md.example/feed": "# From the feed *as is*", "https://md.example/gone": ""}
	lines := func(args ...string) map[string]string {
		out, errOut, code := runCLI(t, nil, env, append([]string{"export", "--text"}, args...)...)
		if code != 0 {
			t.Fatalf("export %v: %d %s", args, code, errOut)
		}
		got := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var p struct{ URL, Text string }
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatal(err)
			}
			got[p.URL] = p.Text
		}
		return got
	}
	check := func(what string, got, want map[string]string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d posts, want %d", what, len(got), len(want))
		}
		for u, w := range want {
			if got[u] != w {
				t.Errorf("%s %s: text %q, want %q", what, u, got[u], w)
			}
		}
	}
	check("markdown", lines("--text-format", "markdown"), want)
	check("plain", lines(), plain)
	check("plain (named)", lines("--text-format", "plain"), plain)

	file := filepath.Join(t.TempDir(), "md.parquet")
	if _, errOut, code := runCLI(t, nil, env, "export", "--format", "parquet", "--text-format", "markdown", "--output", file); code != 0 {
		t.Fatalf("export parquet markdown: %d %s", code, errOut)
	}
	rows, err := parquet.ReadFile[struct {
		URL  string `parquet:"url"`
		Text string `parquet:"text"`
	}](file)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.URL] = r.Text
	}
	check("parquet markdown", got, want)
}
