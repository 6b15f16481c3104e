package pageparse

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/extract"
)

const post = `<!doctype html><html lang="en"><head><title>A post</title></head><body><article>
<p>The first paragraph of a post long enough to be taken as the article, with <a href="/cited">a relative link</a> and <a href="https://other.example/x">an absolute one</a>.</p>
<p>The second paragraph carries on in the same vein for a while, so that there is text to keep.</p>
</article></body></html>`

func TestParse(t *testing.T) {
	o := Options{Agent: "CorpusBot"}
	for _, c := range []struct {
		name, url, ct string
		citations     []string
		err           error
	}{
		{"with a URL", "https://b.example/p/", "", []string{"https://b.example/cited", "https://other.example/x"}, nil},
		// Nobody said where the page lives: relative links resolve to nothing.
		{"without a URL", "", "text/html", []string{"https://other.example/x"}, nil},
		{"not HTML", "", "application/pdf", nil, ErrNotPage},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := o.Parse([]byte(post), c.url, c.ct)
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			if strings.Join(l.Citations, " ") != strings.Join(c.citations, " ") || l.URL != c.url || l.Language != "en" {
				t.Errorf("%+v", l)
			}
		})
	}
}

// TestFromPage: what the page does not give is "", [] or false, never null.
func TestFromPage(t *testing.T) {
	b, err := json.Marshal(FromPage("", extract.Page{}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"url":"","title":"","text":"","author":"","published":"","modified":"","language":"","description":"","site_name":"","tags":[],"license":"","image":"","canonical":"","noindex":false,"nofollow":false,"shell":false,"citations":[]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestBatch(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.html")
	if err := os.WriteFile(good, []byte(post), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"file":"` + good + `","url":"https://b.example/p/"}

not json
{"file":"` + filepath.Join(dir, "gone.html") + `"}
{"file":"` + good + `","content_type":"image/png"}
`
	var out bytes.Buffer
	if err := (Options{Agent: "CorpusBot"}).Batch(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines (a blank input line gives none):\n%s", len(lines), out.String())
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if _, bad := m["error"]; bad != (i > 0) {
			t.Errorf("line %d: %s", i, l)
		}
	}
	if !strings.Contains(lines[3], "not a page") {
		t.Errorf("line 3: %s", lines[3])
	}
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for limit, want := range map[int64]string{0: "0123456789", 4: "0123", 10: "0123456789", 99: "0123456789"} {
		b, err := ReadFile(path, limit)
		if err != nil || string(b) != want {
			t.Errorf("limit %d: %q, %v", limit, b, err)
		}
	}
	if _, err := ReadFile(path+"-missing", 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
