package extract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/extract"
)

var update = flag.Bool("update", false, "rewrite the .golden files from the current output")

// defaultPageURL is the address every fixture is read as fetched from,
// unless NAME.url says otherwise.
const defaultPageURL = "https://blog.example/2026/03/a-post/"

// agent is the product token the crawler passes.
const agent = "CorpusBot"

// golden is Page as written to NAME.golden: every field, in a fixed order.
type golden struct {
	Title       string   `json:"title"`
	Published   string   `json:"published"`
	Modified    string   `json:"modified"`
	Author      string   `json:"author"`
	Language    string   `json:"language"`
	Description string   `json:"description"`
	SiteName    string   `json:"site_name"`
	Tags        []string `json:"tags"`
	License     string   `json:"license"`
	Image       string   `json:"image"`
	Canonical   string   `json:"canonical"`
	Noindex     bool     `json:"noindex"`
	Nofollow    bool     `json:"nofollow"`
	Shell       bool     `json:"shell"`
	Links       []string `json:"links"`
	Text        string   `json:"text"`
	Markdown    string   `json:"markdown"`
}

// TestGolden parses every testdata/NAME.html and compares the result with
// NAME.golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	if len(names) < 20 {
		t.Fatalf("only %d fixtures found", len(names))
	}
	for _, path := range names {
		stem := strings.TrimSuffix(path, ".html")
		t.Run(filepath.Base(stem), func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := extract.ParseResponse(body, fixtureURL(t, stem), fixtureContentType(t, stem), agent)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, stem+".golden", render(t, p))
		})
	}
}

func fixtureURL(t testing.TB, stem string) *url.URL {
	t.Helper()
	s := defaultPageURL
	b, err := os.ReadFile(stem + ".url")
	if err == nil {
		s = strings.TrimSpace(string(b))
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// fixtureContentType is the response's Content-Type a fixture is read
// with: NAME.ct, or none.
func fixtureContentType(t testing.TB, stem string) string {
	t.Helper()
	b, err := os.ReadFile(stem + ".ct")
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func render(t *testing.T, p extract.Page) string {
	t.Helper()
	g := golden{Title: p.Title, Noindex: p.Noindex, Nofollow: p.Nofollow, Shell: p.Shell, Links: p.Links, Text: p.Text, Markdown: p.Markdown,
		Author: p.Author, Language: p.Language, Description: p.Description, SiteName: p.SiteName, Tags: p.Tags,
		License: p.License, Image: p.Image, Canonical: p.Canonical}
	if !p.Modified.IsZero() {
		g.Modified = p.Modified.Format(time.RFC3339Nano)
	}
	if !p.Published.IsZero() {
		if p.Published.Location() != time.UTC {
			t.Errorf("published %v is not UTC", p.Published)
		}
		g.Published = p.Published.Format(time.RFC3339Nano)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	return b.String()
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
