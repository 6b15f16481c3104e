package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// FuzzMarkdownNormalShortcut: markdown given the whole text normalised
// (which lets it skip normalising and searching block by block when that
// changes nothing) writes what it writes when made to normalise and
// search every block, over any HTML and any page address. It holds by
// the argument in markdown's comment; this checks the argument.
func FuzzMarkdownNormalShortcut(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "https://example.com/post")
	}
	f.Add([]byte("<p>e\u0301\xe2\x80</p><p>\u0301x \u00ADhttps://h/p</p><pre>a\n\n\u200bb</pre><p>https://h/p</p>"), "https://h/p")
	f.Add([]byte("<p>\xcc</p><p>\x81a</p><ul><li>A\u030a<li>\u212b</ul>"), "")
	f.Fuzz(func(t *testing.T, body []byte, self string) {
		doc, err := html.Parse(strings.NewReader(string(body)))
		if err != nil {
			return
		}
		r, _ := renderText(doc, pruned)
		normal := normalise(strings.ToValidUTF8(r.text, "\uFFFD"))
		selves := []string{self, "https://h/p"}
		text := withoutSelf(normal, selves...)
		// A "normal" text that is not r.text, with self said to be taken
		// out of it, takes the long way: every block normalised and
		// searched.
		if got, want := r.markdown(normal, text != normal, selves...), r.markdown("\x00", true, selves...); got != want {
			t.Fatalf("markdown with the text normalised:\n%q\nblock by block:\n%q", got, want)
		}
	})
}

// TestNormaliseByBlocks: normalising a text is normalising its blocks
// (apart by a blank line) one by one, for texts that need it: what
// markdown's shortcut rests on.
func TestNormaliseByBlocks(t *testing.T) {
	for _, s := range []string{
		"e\u0301\n\n\u0301x", "\xe2\x80\n\n\x80a", "a\u00AD\n\n\u200bb", "\u212b\n\nA\u030a\u0323",
		"x" + strings.Repeat("\u0301", 40) + "\n\n" + strings.Repeat("\u0323", 40),
	} {
		var blocks []string
		for b := range strings.SplitSeq(s, "\n\n") {
			blocks = append(blocks, normalise(strings.ToValidUTF8(b, "\uFFFD")))
		}
		if got, want := normalise(strings.ToValidUTF8(s, "\uFFFD")), strings.Join(blocks, "\n\n"); got != want {
			t.Errorf("%q: normalised whole %q, by blocks %q", s, got, want)
		}
	}
}
