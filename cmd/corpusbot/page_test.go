package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const samplePage = `<!doctype html><html lang="en"><head><title>A post | Blog</title>
<link rel="canonical" href="/p/1"></head><body><article><h1>A post</h1>
<p>The first paragraph of a post long enough to be taken as the article by the extractor, with <a href="/cited">a citation</a> in it.</p>
<p>The second paragraph carries on in the same vein for a while, so that there is text to keep.</p>
</article></body></html>`

func TestPageParseOne(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.html")
	if err := os.WriteFile(file, []byte(samplePage), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, nil, nil, "page", "parse", "--url", "https://b.example/p/1?x", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var l map[string]any
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// Every field of the contract, in its order.
	want := []string{"url", "title", "text", "author", "published", "modified", "language", "description",
		"site_name", "tags", "license", "image", "canonical", "noindex", "nofollow", "shell", "citations"}
	last := -1
	for _, k := range want {
		i := strings.Index(out, `"`+k+`":`)
		if i < 0 || i < last {
			t.Errorf("field %q missing or out of order in %s", k, out)
		}
		last = i
	}
	if l["canonical"] != "https://b.example/p/1" || !strings.Contains(l["text"].(string), "second paragraph") {
		t.Errorf("got %s", out)
	}
	if c, _ := l["citations"].([]any); len(c) != 1 || c[0] != "https://b.example/cited" {
		t.Errorf("citations %v", l["citations"])
	}
}

func TestPageParseNotAPage(t *testing.T) {
	out, errOut, code := runCLI(t, strings.NewReader("%PDF-1.7 ..."), nil, "page", "parse", "-")
	if code != 3 || out != "" || !strings.HasPrefix(errOut, "not a page: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, errOut, code = runCLI(t, strings.NewReader(samplePage), nil, "page", "parse", "--content-type", "application/pdf", "-")
	if code != 3 || !strings.HasPrefix(errOut, "not a page: ") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestPageParseBatch(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.html")
	if err := os.WriteFile(good, []byte(samplePage), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"file":"` + good + `","url":"https://b.example/p/1","content_type":"text/html; charset=utf-8"}
{"file":"` + filepath.Join(dir, "missing.html") + `","url":"https://b.example/p/2"}
{"file":"` + good + `","content_type":"image/png"}
`
	out, errOut, code := runCLI(t, strings.NewReader(in), nil, "page", "parse", "--batch")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		_, hasErr := m["error"]
		if m["file"] == "" || hasErr != (i > 0) {
			t.Errorf("line %d: %s", i, l)
		}
		if hasErr && len(m) != 2 {
			t.Errorf("an error line has only file and error: %s", l)
		}
	}
	if !strings.HasPrefix(lines[0], `{"file":`) {
		t.Errorf("file comes first: %s", lines[0])
	}
}
