package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// textOf is the text directly and indirectly under n, up to 64 bytes: enough
// to recognise a label.
func textOf(n *html.Node) string {
	var b strings.Builder
	writeTextOf(&b, n)
	return b.String()
}

// writeTextOf writes textOf(n) to b: each element's children are added
// until its own text holds 64 bytes, all into the one builder rather
// than a string an element, each copied into its parent's.
func writeTextOf(b *strings.Builder, n *html.Node) {
	start := b.Len()
	for c := n.FirstChild; c != nil && b.Len()-start < 64; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			b.WriteString(c.Data)
		case html.ElementNode:
			writeTextOf(b, c)
		}
	}
}

// lowerHasPrefix is strings.HasPrefix(strings.ToLower(s), prefix),
// lowering only as many runes of s as it takes, each alone (as ToLower
// does, an invalid byte as U+FFFD), into no new string.
func lowerHasPrefix(s, prefix string) bool {
	var lowered [utf8.UTFMax]byte
	for _, r := range s {
		if prefix == "" {
			break
		}
		l := lowered[:utf8.EncodeRune(lowered[:], unicode.ToLower(r))]
		n := min(len(l), len(prefix))
		if string(l[:n]) != prefix[:n] {
			return false
		}
		prefix = prefix[n:]
	}
	return prefix == ""
}

// hoist lifts an embedded post out of the wrappers that hold only it
// (<div class="social-media-embed"><blockquote class="twitter-tweet">):
// readability drops a wrapper whose name sounds like a sidebar ("social",
// "embed" next to "share"), and the post is part of what the author wrote.
func hoist(n *html.Node) {
	for i := 0; i < 3; i++ {
		p := n.Parent
		if p == nil || p.Type != html.ElementNode || p.Parent == nil || p.Data == "body" || p.Data == "article" || !onlyChild(p, n) {
			return
		}
		p.RemoveChild(n)
		p.Parent.InsertBefore(n, p)
		p.Parent.RemoveChild(p)
	}
}

// onlyChild reports whether n is p's one child that shows anything
// (scripts and white space aside).
func onlyChild(p, n *html.Node) bool {
	for c := p.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c == n:
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.ElementNode && (c.Data == "script" || c.Data == "noscript"):
		case c.Type == html.CommentNode:
		default:
			return false
		}
	}
	return true
}
