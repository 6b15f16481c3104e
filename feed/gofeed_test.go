package feed_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"corpus.blog/corpusbot/feed"
)

// TestGofeedDisagreements runs gofeed, the comparison peer, over the same
// fixtures and logs every field where it differs from the golden output:
// a record of why this package does not use it (go test -v -run Gofeed).
// It never fails: gofeed getting better is not a fault here.
func TestGofeedDisagreements(t *testing.T) {
	var names []string
	for _, ext := range []string{"xml", "json", "html"} {
		m, _ := filepath.Glob(filepath.Join("testdata", "*."+ext))
		names = append(names, m...)
	}
	p := gofeed.NewParser()
	wrong := 0
	for _, path := range names {
		stem := strings.TrimSuffix(path, filepath.Ext(path))
		want, err := os.ReadFile(stem + ".golden")
		if err != nil {
			t.Fatal(err)
		}
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g, gerr := p.Parse(bytes.NewReader(body))
		var diffs []string
		isFeed := !bytes.HasPrefix(want, []byte("not a feed"))
		switch {
		case !isFeed && gerr == nil:
			diffs = append(diffs, "read a non-feed as a "+g.FeedType+" feed")
		case isFeed && gerr != nil:
			diffs = append(diffs, "failed: "+gerr.Error())
		case isFeed:
			diffs = compareGofeed(t, want, g)
		}
		if len(diffs) > 0 {
			wrong++
			t.Logf("%s: %s", filepath.Base(stem), strings.Join(diffs, "; "))
		}
	}
	t.Logf("gofeed differs on %d of %d fixtures", wrong, len(names))
}

func compareGofeed(t *testing.T, golden []byte, g *gofeed.Feed) []string {
	lines := strings.Split(strings.TrimSpace(string(golden)), "\n")
	var head goldenFeed
	must(t, json.Unmarshal([]byte(lines[0]), &head))
	var diffs []string
	differ := func(what, want, got string) {
		if want != got {
			diffs = append(diffs, what+": want "+quote(want)+", gofeed "+quote(got))
		}
	}
	differ("format", head.Format, g.FeedType)
	differ("title", head.Title, g.Title)
	differ("link", head.Link, g.Link)
	entries := lines[1:]
	if len(entries) != len(g.Items) {
		diffs = append(diffs, "entries: want "+itoa(len(entries))+", gofeed "+itoa(len(g.Items)))
		return diffs
	}
	for i, line := range entries {
		var e goldenEntry
		must(t, json.Unmarshal([]byte(line), &e))
		it := g.Items[i]
		n := "entry " + itoa(i) + " "
		differ(n+"link", e.Link, it.Link)
		differ(n+"title", e.Title, it.Title)
		differ(n+"published", e.Published, gofeedStamp(it.PublishedParsed))
		differ(n+"updated", e.Updated, gofeedStamp(it.UpdatedParsed))
		// gofeed has no notion of full content; measured the same way on
		// what it calls Content, the comparison is of what it takes as the body.
		_, full := gofeedFull(it)
		if full != e.FullContent {
			diffs = append(diffs, n+"full_content: want "+boolString(e.FullContent)+", gofeed's content gives "+boolString(full))
		}
	}
	return diffs
}

// gofeedFull measures gofeed's Content with this package's own rule, by
// wrapping it in a JSON Feed item.
func gofeedFull(it *gofeed.Item) (string, bool) {
	if it.Content == "" {
		return "", false
	}
	doc, _ := json.Marshal(map[string]any{"version": "https://jsonfeed.org/version/1.1",
		"items": []map[string]string{{"id": "x", "content_html": it.Content}}})
	f, err := feed.Parse(doc, "")
	if err != nil || len(f.Entries) == 0 {
		return "", false
	}
	return it.Content, f.Entries[0].FullContent
}

func gofeedStamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return stamp(t.UTC())
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
