package crawl

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// htmlText is the text of an HTML fragment (a feed entry's full content),
// white space collapsed, without scripts and styles: what a page fetch
// would have kept of the same post.
func htmlText(fragment string) string {
	z := html.NewTokenizer(strings.NewReader(fragment))
	var t spaceCollapser
	t.b.Grow(len(fragment) / 2)
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return t.b.String()
		case html.StartTagToken:
			if n, _ := z.TagName(); string(n) == "script" || string(n) == "style" {
				skip++
			}
		case html.EndTagToken:
			if n, _ := z.TagName(); (string(n) == "script" || string(n) == "style") && skip > 0 {
				skip--
			}
			t.space()
		case html.TextToken:
			if skip == 0 {
				t.write(z.Text())
				t.space()
			}
		}
	}
}

// spaceCollapser builds text with every run of white space made one space
// and none leading or trailing: strings.Join(strings.Fields(s), " ") (the
// same white space, unicode.IsSpace) as the text is written, without
// building the uncollapsed text and a slice of its words first. At real
// sizes (a full-content feed of up to 1 MB) those were the larger part of
// the cost of a feed's entries.
type spaceCollapser struct {
	b       strings.Builder
	pending bool // white space since the last word: one space before the next
}

// space is white space between two pieces of text.
func (t *spaceCollapser) space() { t.pending = t.b.Len() > 0 }

// write adds p, its white space collapsed.
func (t *spaceCollapser) write(p []byte) {
	word := -1 // start of the word being read, if any
	for i := 0; i < len(p); {
		r, size := rune(p[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(p[i:])
		}
		if isSpace(r) {
			if word >= 0 {
				t.word(p[word:i])
				word = -1
			}
			t.space()
		} else if word < 0 {
			word = i
		}
		i += size
	}
	if word >= 0 {
		t.word(p[word:])
	}
}

// word adds a run of text without white space, after a space if one is owed.
func (t *spaceCollapser) word(w []byte) {
	if t.pending && t.b.Len() > 0 {
		t.b.WriteByte(' ')
	}
	t.pending = false
	t.b.Write(w)
}

// isSpace is unicode.IsSpace, with the ASCII cases first.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return r >= utf8.RuneSelf && unicode.IsSpace(r)
}
