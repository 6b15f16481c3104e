package main

import (
	"corpus.blog/corpusbot/internal/config"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsStayInTheRepo: the README, the pages under docs/ and every
// command's help refer only to what a clone has, and the docs' relative
// links name files in the repository.
func TestDocsStayInTheRepo(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{} // path from the root -> text
	for _, p := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		docs[filepath.ToSlash(rel)] = string(b)
	}
	texts := map[string]string{}
	for name, text := range docs {
		texts[name] = text
	}
	for _, c := range commands() {
		out, _, _ := runCLI(t, nil, nil, append(strings.Fields(c.name), "--help")...)
		texts[c.name+" --help"] = out
	}
	for name, text := range texts {
		for _, outside := range []string{"CONTRACT", "../shared", "/work/"} {
			if strings.Contains(text, outside) {
				t.Errorf("%s mentions %q, which a clone does not have", name, outside)
			}
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for name, text := range docs {
		dir := filepath.Join(root, filepath.Dir(filepath.FromSlash(name)))
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := filepath.Join(dir, filepath.FromSlash(target))
			if rel, err := filepath.Rel(root, path); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links %s, outside the repository", name, m[1])
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links %s: %v", name, m[1], err)
			}
		}
	}
}

// TestSettingsDoc: docs/settings.md's table has a row for every setting of
// the code's one table, with its default, and no other.
func TestSettingsDoc(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| `([^`]*)` \\|")
	rows := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		rows[m[1]] = m[2]
	}
	entries := config.Defaults().Entries()
	for _, e := range entries {
		want := e.Default
		if want == "" {
			want = `""`
		}
		got, ok := rows[e.Name]
		switch {
		case !ok:
			t.Errorf("docs/settings.md's table has no row for %s", e.Name)
		case got != want:
			t.Errorf("docs/settings.md says %s defaults to %s, the code %s", e.Name, got, want)
		}
	}
	if len(rows) != len(entries) {
		t.Errorf("docs/settings.md's table has %d rows, the code %d settings", len(rows), len(entries))
	}
}
