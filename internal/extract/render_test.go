package extract_test

import (
	"os"
	"path/filepath"
	"testing"

	"corpus.blog/corpusbot/internal/extract"
)

// TestStructure: each paragraph, heading, list item, quote and pre block is
// its own block, one blank line between; the byline, dateline, caption,
// share bar, promo, link list and hidden block are left out; the embedded
// tweet is kept although its wrapper's name sounds like a sidebar.
func TestStructure(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "embedded_tweet.html"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := extract.Parse(body, fixtureURL(t, "testdata/embedded_tweet"), agent)
	if err != nil {
		t.Fatal(err)
	}
	want := `The council's new poster about the water troughs went up on Monday, and by Tuesday half the site was laughing at it. The slogan was meant to be reassuring; it read as a confession.

People said so on every channel they had, and a few of them said it well enough to quote here.

Troughs. We're on it. (We are not on it.) https://t.co/abc123

— Bob Digger (@bobdigs) March 3, 2026

The committee has promised a new poster, and a pump, in that order, which tells you most of what you need to know about the committee.

What happens next

A new poster, drafted by the secretary and approved by nobody in particular.

A pump, lent by the café on the corner, until the troughs are mended for good.

  trough 1: leaks
  trough 2: leaks less`
	if p.Text != want {
		t.Errorf("text:\n%s\n\nwant:\n%s", p.Text, want)
	}
	if p.Author != "Ann Gardener" {
		t.Errorf("author %q", p.Author)
	}
}
