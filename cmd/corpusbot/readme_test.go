package main

import (
	"corpus.blog/corpusbot/internal/config"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsStayInTheRepo: the README and every command's help refer only to
// what a clone has. The README once linked ../shared/CONTRACT.md, a file
// outside the repository; its relative links must name files in it.
func TestDocsStayInTheRepo(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"README.md": string(readme)}
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
	for _, m := range link.FindAllStringSubmatch(string(readme), -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(target))
		if rel, err := filepath.Rel(root, path); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("README links %s, outside the repository", m[1])
			continue
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("README links %s: %v", m[1], err)
		}
	}
}

// TestReadmeSettings: the README's settings table has a row for every
// setting of the code's one table, with its default, and no other.
func TestReadmeSettings(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
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
			t.Errorf("README's settings table has no row for %s", e.Name)
		case got != want:
			t.Errorf("README says %s defaults to %s, the code %s", e.Name, got, want)
		}
	}
	if len(rows) != len(entries) {
		t.Errorf("README's settings table has %d rows, the code %d settings", len(rows), len(entries))
	}
}
