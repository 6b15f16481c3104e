package extract

import (
	"strings"

	"golang.org/x/net/html"
)

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
