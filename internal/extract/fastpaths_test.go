package extract

// Tests of the fast paths of extraction against the code they replace:
// each oracle here is the old code, kept only to be compared with.

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// textRuneByRune is textBuilder.text as it was, a rune at a time through
// range: the oracle for its ASCII fast path.
func (t *textBuilder) textRuneByRune(s string) {
	start := -1
	for i, r := range s {
		if isSpace(r) {
			if start >= 0 {
				t.word(s[start:i])
				start = -1
			}
			t.space = true
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		t.word(s[start:])
	}
}

// metaLineSlow is metaLine as it was, splitting every line with a dash
// in it: the oracle for its tighter first check.
func metaLineSlow(lower string) bool {
	if len(lower) > 300 || !strings.ContainsAny(lower, "-–|•·\x00") {
		return false
	}
	parts := strings.FieldsFunc(metaSeparators.Replace(lower), func(r rune) bool { return r == 0 })
	if len(parts) < 2 {
		return false
	}
	meta := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if dateLike(p) {
			meta++
			continue
		}
		for _, l := range metaLabels {
			if startsWord(p, l) && len(p) > len(l) {
				meta++
				break
			}
		}
	}
	return meta >= 2 && meta*3 >= len(parts)*2
}

var fastTexts = []string{
	"", " ", "one", " two  words ", "tab\tand\nnewline\r\n", "nbsp\u00a0here", "ideo\u3000space",
	"bad\xffbyte \xe2\x80", "日本語 の テキスト", "05/10/2018 - Publicado por: Clarissa Borba - Categoria: Saúde",
	"well-known word", "a – b | c • d · e", "x\x00y", "by jane doe | 12 march 2024",
	"one two three  four\tfive six\u00a0seven eight ", "a b\xff c\u3000d e", " x y", "x y\n", "x \n y",
}

func checkFast(t *testing.T, s string) {
	t.Helper()
	// Into an empty block, and after text that did or did not end with a
	// space or a line break, inside a link and not.
	for _, before := range []struct {
		block  string
		space  bool
		inLink int
	}{{"", false, 1}, {"x", true, 1}, {"x", false, 0}, {"x\n", true, 1}, {"", true, 0}} {
		var fast, slow textBuilder
		fast.block, slow.block = []byte(before.block), []byte(before.block)
		fast.space, slow.space = before.space, before.space
		fast.inLink, slow.inLink = before.inLink, before.inLink
		fast.text(s)
		slow.textRuneByRune(s)
		if !slices.Equal(fast.block, slow.block) || fast.space != slow.space || fast.linked != slow.linked {
			t.Fatalf("text(%q) after %+v: block %q space %v linked %d, want %q %v %d", s, before, fast.block, fast.space, fast.linked, slow.block, slow.space, slow.linked)
		}
	}
	if got, want := metaLine(s), metaLineSlow(s); got != want {
		t.Fatalf("metaLine(%q) = %v, want %v", s, got, want)
	}
}

// TestFastPaths: text's ASCII path and metaLine's tighter first check
// change nothing.
func TestFastPaths(t *testing.T) {
	for _, s := range fastTexts {
		checkFast(t, s)
	}
}

func FuzzFastPaths(f *testing.F) {
	for _, s := range fastTexts {
		f.Add(s)
	}
	f.Fuzz(checkFast)
}

// elementsByStack is elements as it was, over a stack of nodes: the
// oracle for the walk by links.
func elementsByStack(n *html.Node, fn func(*html.Node) bool) {
	if n == nil {
		return
	}
	stack := []*html.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		descend := true
		if c.Type == html.ElementNode {
			descend = fn(c)
		}
		if !descend {
			continue
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
}

// TestElementsWalk: the walk by links calls fn on the same elements in the
// same order as the walk by a stack, from the document and from inner
// nodes, when fn skips the children of some.
func TestElementsWalk(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	if len(pages) == 0 {
		t.Fatal("no test pages")
	}
	walked := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var roots []*html.Node
		elementsByStack(doc, func(n *html.Node) bool {
			if len(roots) < 50 {
				roots = append(roots, n)
			}
			return true
		})
		roots = append(roots, doc, doc.FirstChild)
		for i, root := range roots {
			skip := func(n *html.Node) bool { return len(n.Attr)%(2+i%3) != 1 && n.Data != "nav" }
			var got, want []*html.Node
			elements(root, func(n *html.Node) bool { got = append(got, n); return skip(n) })
			elementsByStack(root, func(n *html.Node) bool { want = append(want, n); return skip(n) })
			if !slices.Equal(got, want) {
				t.Fatalf("%s: from %q, %d elements walked, want %d", p, root.Data, len(got), len(want))
			}
			walked += len(got)
		}
	}
	t.Logf("%d pages, %d elements walked", len(pages), walked)
}

func FuzzElementsWalk(f *testing.F) {
	for _, s := range fastTexts {
		f.Add([]byte("<div><p>" + s + "</p><nav><a href=x>y</a></nav></div>"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := html.Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		skip := func(n *html.Node) bool { return len(n.Attr) != 1 && n.Data != "nav" }
		var got, want []*html.Node
		elements(doc, func(n *html.Node) bool { got = append(got, n); return skip(n) })
		elementsByStack(doc, func(n *html.Node) bool { want = append(want, n); return skip(n) })
		if !slices.Equal(got, want) {
			t.Fatalf("%d elements walked, want %d", len(got), len(want))
		}
	})
}

// textOfByStrings is textOf as it was, a string an element: the oracle
// for the one builder.
func textOfByStrings(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil && b.Len() < 64; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			b.WriteString(c.Data)
		case html.ElementNode:
			b.WriteString(textOfByStrings(c))
		}
	}
	return b.String()
}

// FuzzTextOf: textOf is the oracle's under every element of any page,
// and lowerHasPrefix lowers as much as it needs to for a "skip to " link
// (or any prefix) of any text.
func FuzzTextOf(f *testing.F) {
	for _, s := range fastTexts {
		f.Add([]byte("<a href=#main><span>"+s+"</span> Skip To <b>"+strings.Repeat(s, 9)+"</b></a>"), "skip to ")
	}
	f.Add([]byte("<a>SKİP TO \u212aelvin</a>"), "skip to ")
	f.Add([]byte("<a>\xe2\x80Skip</a>"), "\ufffdskip")
	f.Fuzz(func(t *testing.T, b []byte, prefix string) {
		doc, err := html.Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		elements(doc, func(n *html.Node) bool {
			if got, want := textOf(n), textOfByStrings(n); got != want {
				t.Fatalf("textOf(<%s>) = %q, want %q", n.Data, got, want)
			}
			return true
		})
		for _, s := range []string{textOf(doc), string(b)} {
			if got, want := lowerHasPrefix(s, prefix), strings.HasPrefix(strings.ToLower(s), prefix); got != want {
				t.Fatalf("lowerHasPrefix(%q, %q) = %v, want %v", s, prefix, got, want)
			}
		}
	})
}
