package feed_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/feed"
)

// TestDiscoverGolden reads every testdata/discover/NAME.html as the page at
// NAME.url and compares the feeds found with NAME.golden.
func TestDiscoverGolden(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "discover", "*.html"))
	if len(names) < 8 {
		t.Fatalf("only %d discovery fixtures found", len(names))
	}
	for _, path := range names {
		stem := strings.TrimSuffix(path, ".html")
		t.Run(filepath.Base(stem), func(t *testing.T) {
			page, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, stem+".golden", renderLinks(t, feed.Discover(page, fixtureURL(t, stem))))
		})
	}
}

func renderLinks(t *testing.T, links []feed.Link) string {
	if len(links) == 0 {
		return "(no feeds)\n"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, l := range links {
		must(t, enc.Encode(struct {
			URL   string `json:"url"`
			Type  string `json:"type"`
			Title string `json:"title"`
		}{l.URL, l.Type, l.Title}))
	}
	return b.String()
}

func TestDiscoverBounds(t *testing.T) {
	// A page of nothing but feed links returns a bounded list.
	var b strings.Builder
	b.WriteString("<html><head>")
	for i := range 1000 {
		b.WriteString(`<link rel="alternate" type="application/rss+xml" href="/f` + strings.Repeat("x", i%7) + `/` + itoa(i) + `">`)
	}
	if got := len(feed.Discover([]byte(b.String()), "https://many.example/")); got == 0 || got > 100 {
		t.Errorf("%d links from a page of 1000", got)
	}
	// A link past MaxDiscoverBytes is not read.
	page := "<html><head><title>" + strings.Repeat("a", feed.MaxDiscoverBytes) + "</title>" +
		`<link rel="alternate" type="application/rss+xml" href="/late.xml"></head></html>`
	if got := feed.Discover([]byte(page), "https://big.example/"); len(got) != 0 {
		t.Errorf("read past the bound: %v", got)
	}
	// Nothing, and not HTML at all, are no feeds and no panic.
	for _, page := range []string{"", "\x00\xff<", "<link", `<link rel=alternate type=application/rss+xml href=`} {
		if got := feed.Discover([]byte(page), "https://x.example/"); len(got) != 0 {
			t.Errorf("Discover(%q) = %v", page, got)
		}
	}
}
