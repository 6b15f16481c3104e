package feed_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"corpus.blog/corpusbot/feed"
)

var update = flag.Bool("update", false, "rewrite the .golden files from the current output")

// defaultFeedURL is the address every fixture is read as fetched from,
// unless NAME.url says otherwise (an empty NAME.url means no address).
const defaultFeedURL = "https://blog.example/feed/"

// TestGolden parses every testdata/NAME.{xml,json,html} and compares the
// result, written out in full, with NAME.golden.
func TestGolden(t *testing.T) {
	var names []string
	for _, ext := range []string{"xml", "json", "html"} {
		m, _ := filepath.Glob(filepath.Join("testdata", "*."+ext))
		names = append(names, m...)
	}
	if len(names) < 60 {
		t.Fatalf("only %d fixtures found", len(names))
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := feed.Parse(body, fixtureURL(t, strings.TrimSuffix(path, filepath.Ext(path))))
			checkGolden(t, strings.TrimSuffix(path, filepath.Ext(path))+".golden", renderFeed(t, f, err))
		})
	}
}

func fixtureURL(t *testing.T, stem string) string {
	b, err := os.ReadFile(stem + ".url")
	if errors.Is(err, os.ErrNotExist) {
		return defaultFeedURL
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// The golden form: everything Parse returns, one JSON object a line, fields
// in a fixed order.
type goldenFeed struct {
	Type       string `json:"type"`
	Format     string `json:"format"`
	Version    string `json:"version"`
	Title      string `json:"title"`
	Link       string `json:"link"`
	Self       string `json:"self,omitempty"`
	Next       string `json:"next,omitempty"`
	Hub        string `json:"hub,omitempty"`
	Language   string `json:"language,omitempty"`
	IsComments bool   `json:"is_comments"`
	Truncated  bool   `json:"truncated"`
	Entries    int    `json:"entries"`
}

type goldenEntry struct {
	Type        string   `json:"type"`
	ID          string   `json:"id"`
	Link        string   `json:"link"`
	Title       string   `json:"title"`
	Published   string   `json:"published"`
	Updated     string   `json:"updated"`
	FullContent bool     `json:"full_content"`
	Content     string   `json:"content,omitempty"` // the first characters, and the length in bytes
	Author      string   `json:"author,omitempty"`
	Categories  []string `json:"categories,omitempty"`
	Language    string   `json:"language,omitempty"`
}

func renderFeed(t *testing.T, f *feed.Feed, err error) string {
	t.Helper()
	if err != nil {
		var nf *feed.NotFeedError
		if !errors.As(err, &nf) || !errors.Is(err, feed.ErrNotFeed) {
			t.Fatalf("error %v (%T) is not a *NotFeedError", err, err)
		}
		if f != nil {
			t.Fatalf("a feed returned with the error %v", err)
		}
		return err.Error() + "\n"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	must(t, enc.Encode(goldenFeed{"feed", f.Format, f.Version, f.Title, f.Link, f.Self, f.Next, f.Hub, f.Language, f.IsComments, f.Truncated, len(f.Entries)}))
	for _, e := range f.Entries {
		must(t, enc.Encode(goldenEntry{"item", e.ID, e.Link, e.Title, stamp(e.Published), stamp(e.Updated), e.FullContent, abbreviate(e.Content), e.Author, e.Categories, e.Language}))
	}
	return b.String()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	if t.Location() != time.UTC {
		return "NOT UTC: " + t.String()
	}
	return t.Format(time.RFC3339Nano)
}

func abbreviate(s string) string {
	if s == "" {
		return ""
	}
	n := len(s)
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return s + " [" + itoa(n) + " bytes]"
}

func itoa(n int) string { return strconv.Itoa(n) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
