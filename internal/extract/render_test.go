package extract_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

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

// TestMarkdown: the Markdown form marks each kind of block and escapes
// the rest, fixture by fixture; its words are the plain text's.
func TestMarkdown(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    []string // blocks (or runs of blocks) the Markdown must hold
		not     []string // and must not
	}{
		{"markdown_blocks", []string{
			// headings, by level
			"\n\n## What was agreed\n\n", "\n\n### Who does what\n\n", "\n\n#### Rank \\#\n\n",
			// an ordered list with its start, an item of two paragraphs, a nested list
			"\n\n3. The troughs are mended before the first of May, whatever it costs.\n\n4. The shed roof waits until autumn.\n\n   Nobody was happy about this, but the money is in the troughs.\n\n5. The long ladder lives in the shed, chained:\n\n   1. the key stays with the secretary;\n\n   2. the chain is the old bicycle chain.\n\n",
			// a nested unordered list
			"\n\n- Bob keeps the minutes\n\n  - in the green book, not the blue one;\n\n  - and reads them out next time.\n\n- Everyone else brings biscuits.\n\n",
			// a quote of two paragraphs, one quote
			"\n\n> The troughs are the committee's first duty and its last.\n>\n> Everything else is weather.\n\n",
			// code with a run of backticks inside: a longer fence, the code as written
			"\n\n````\n=SUM(B2:B9) * 1.2   # with VAT\necho ```not a fence``` here\n````\n\n",
			// inline markup characters escaped
			"Some marks that are only text: \\*not bold\\*, \\_not italic\\_, \\[not a link\\](x), a \\| b, \\<not html>, back\\\\slash, 5 \\< 7 & AT\\&T, \\&copy; and \\`not code\\`.",
			// line starts that would be markup, lines kept apart by hard breaks
			"\n\n\\# not a heading\\\n1\\. not a list item\\\n\\- not a bullet either\n\n",
		}, nil},
		{"embedded_tweet", []string{
			"\n\n> Troughs. We're on it. (We are not on it.) https://t.co/abc123\n>\n> — Bob Digger (@bobdigs) March 3, 2026\n\n",
			"\n\n## What happens next\n\n- A new poster,",
			"\n\n```\n  trough 1: leaks\n  trough 2: leaks less\n```",
		}, []string{"Hidden from readers"}},
		// A shell's data rendered from HTML keeps its headings.
		{"shell_nuxt_data", []string{"\n\n## Stakes and binders\n\n"}, nil},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			stem := filepath.Join("testdata", tc.fixture)
			body, err := os.ReadFile(stem + ".html")
			if err != nil {
				t.Fatal(err)
			}
			p, err := extract.Parse(body, fixtureURL(t, stem), agent)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Markdown, w) {
					t.Errorf("markdown lacks %q:\n%s", w, p.Markdown)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(p.Markdown, w) {
					t.Errorf("markdown holds %q", w)
				}
			}
			if got, want := markdownWords(p.Markdown), markdownWords(p.Text); !slices.Equal(got, want) {
				t.Errorf("words differ:\n%q\n%q", got, want)
			}
		})
	}
}

// markdownWords is the words of s, Markdown's markup characters and
// numbers (of ordered list items) left out, so that a text and its
// Markdown form give the same.
func markdownWords(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune("\\`*_[]<>|#+-=~&.)!", r) || unicode.IsSpace(r)
	})
	return slices.DeleteFunc(f, func(w string) bool {
		return strings.Trim(w, "0123456789") == ""
	})
}
