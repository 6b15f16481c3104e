package main

import (
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
