package sitemap_test

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/sitemap"
)

// TestFeedAndSitemapAgree reads each feed in testdata/agree with both the
// feed parser and the sitemap reader: the pages they name must be the same,
// in the same order, and be those NAME.want lists (one URL a line), so that
// a post found by its feed and by the feed read as a sitemap is one post.
// Both take the entry's URL from internal/entryurl; this holds them to it.
func TestFeedAndSitemapAgree(t *testing.T) {
	paths, err := filepath.Glob("testdata/agree/*.xml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	const feedURL = "https://agree.example/feed/"
	base, _ := url.Parse(feedURL)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			wantText, err := os.ReadFile(strings.TrimSuffix(path, ".xml") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(string(wantText))

			f, err := feed.Parse(body, feedURL)
			if err != nil {
				t.Fatalf("feed.Parse: %v", err)
			}
			var fromFeed []string
			for _, e := range f.Entries {
				if e.Link != "" {
					fromFeed = append(fromFeed, e.Link)
				}
			}

			var fromSitemap []string
			sum, err := sitemap.Read(bytes.NewReader(body), sitemap.Options{Base: base}, func(e sitemap.Entry) error {
				fromSitemap = append(fromSitemap, e.Loc)
				return nil
			})
			if err != nil {
				t.Fatalf("sitemap.Read: %v", err)
			}

			if !slices.Equal(fromFeed, want) {
				t.Errorf("feed parse names\n%s\nwant\n%s", strings.Join(fromFeed, "\n"), strings.Join(want, "\n"))
			}
			if !slices.Equal(fromSitemap, fromFeed) {
				t.Errorf("sitemap reader names\n%s\nfeed parser\n%s", strings.Join(fromSitemap, "\n"), strings.Join(fromFeed, "\n"))
			}
			if skipped := len(f.Entries) - len(fromFeed); sum.Skipped != skipped {
				t.Errorf("sitemap reader skipped %d entries, feed parser found %d without a link", sum.Skipped, skipped)
			}
		})
	}
}
