package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// pruneSkipLinks removes "Skip to content" links: themes put them first in
// the page for keyboard users, readability keeps them when it takes the
// page wrapper as the article, and they are not part of anyone's text.
func pruneSkipLinks(doc *html.Node) {
	var skip []*html.Node
	elements(doc, func(n *html.Node) bool {
		if n.Data == "a" && strings.HasPrefix(attr(n, "href"), "#") &&
			(hasClass(n, "skip-link", "skip-to-content", "skip-main") || strings.HasPrefix(strings.ToLower(strings.TrimSpace(textOf(n))), "skip to ")) {
			skip = append(skip, n)
			return false
		}
		return true
	})
	for _, n := range skip {
		n.Parent.RemoveChild(n)
	}
}

// textOf is the text directly and indirectly under n, up to 64 bytes: enough
// to recognise a label.
func textOf(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil && b.Len() < 64; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			b.WriteString(c.Data)
		case html.ElementNode:
			b.WriteString(textOf(c))
		}
	}
	return b.String()
}
