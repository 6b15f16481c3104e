package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// exportURLs runs export with args and returns the URLs of its lines and
// the cursor it printed.
func exportURLs(t *testing.T, env map[string]string, args ...string) ([]string, string) {
	t.Helper()
	out, errOut, code := runCLI(t, nil, env, append([]string{"export"}, args...)...)
	if code != 0 {
		t.Fatalf("export %v: %d %s", args, code, errOut)
	}
	var urls []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		u, _, _ := strings.Cut(strings.TrimPrefix(l, `{"url":"`), `"`)
		urls = append(urls, u)
	}
	slices.Sort(urls)
	c, ok := strings.CutPrefix(strings.TrimSpace(errOut), "cursor: ")
	if !ok || strings.Contains(c, "\n") {
		t.Fatalf("export %v: stderr %q, want one cursor line", args, errOut)
	}
	return urls, c
}

func TestExportSelects(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("A text long enough to have its near-copy fingerprint, word after word. ", 8)
	a, _, _ := st.AddSource(ctx, "https://blog.a.example/", time.Now())
	b, _, _ := st.AddSource(ctx, "https://b.example/", time.Now())
	st.AddPosts(ctx, []store.NewPost{{URL: "https://blog.a.example/de", SourceID: a.ID, Text: text, Meta: store.Meta{Language: "de"}, Seen: time.Unix(1, 0)}})
	st.AddPosts(ctx, []store.NewPost{{URL: "https://b.example/copy", SourceID: b.ID, Text: text, Meta: store.Meta{Language: "de"}, Seen: time.Unix(2, 0)}})
	st.AddPosts(ctx, []store.NewPost{{URL: "https://b.example/fr", SourceID: b.ID, Text: "Un autre texte.", Meta: store.Meta{Language: "fr"}}})
	st.AddPosts(ctx, []store.NewPost{{URL: "https://b.example/pending", SourceID: b.ID}})
	st.Close()

	all, cursor := exportURLs(t, env)
	if len(all) != 4 {
		t.Fatalf("export: %v", all)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--state", "pending"}, []string{"https://b.example/pending"}},
		{[]string{"--state", "indexed,pending", "--site", "a.example"}, []string{"https://blog.a.example/de"}},
		{[]string{"--site", "https://www.b.example/"}, []string{"https://b.example/copy", "https://b.example/fr", "https://b.example/pending"}},
		{[]string{"--language", "de"}, []string{"https://b.example/copy", "https://blog.a.example/de"}},
		{[]string{"--language", "DE, fr", "--unique"}, []string{"https://b.example/fr", "https://blog.a.example/de"}},
		{[]string{"--since", cursor}, nil},
		{[]string{"--text", "--text-format", "markdown", "--language", "fr"}, []string{"https://b.example/fr"}},
	} {
		if got, _ := exportURLs(t, env, tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("export %v: %v, want %v", tc.args, got, tc.want)
		}
	}

	st, err = sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := st.Post(ctx, "https://b.example/pending")
	st.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostRemoved, Fetched: time.Now()})
	st.Close()
	if got, next := exportURLs(t, env, "--since", cursor); !slices.Equal(got, []string{"https://b.example/pending"}) || next == cursor {
		t.Errorf("--since after a removal: %v (cursor %s, then %s)", got, cursor, next)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--state", "gone"}, exitUsage, `--state "gone"`},
		{[]string{"--language", "xx"}, exitUsage, `--language "xx" is not an ISO 639-1 language code`},
		{[]string{"--language", "deu"}, exitUsage, `--language "deu"`},
		{[]string{"--text-format", "html"}, exitUsage, `--text-format "html"`},
		{[]string{"--sources", "--unique"}, exitUsage, "select posts, not --sources"},
		{[]string{"--since", "nonsense"}, 1, "is not a cursor an export printed"},
		{[]string{"--since", "c1.0123456789abcdef0123456789abcdef.3"}, 1, "from another database"},
	} {
		out, errOut, code := runCLI(t, nil, env, append([]string{"export"}, tc.args...)...)
		if code != tc.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) || strings.HasPrefix(errOut, "cursor:") {
			t.Errorf("export %v: exit %d, %q %q; want exit %d and one line with %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
}
