package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// attr is n's attribute key (keys are lower-cased by the parser), or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// attrOK is n's attribute key and whether n has it.
func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

// elements calls fn on every element under n in document order; fn returns
// false to skip the element's children. Iterative, so that a deeply nested
// page cannot exhaust the stack, and by the nodes' own links rather than a
// stack of them, which costs an allocation and a write barrier a node: fn
// must not change the tree.
func elements(n *html.Node, fn func(*html.Node) bool) {
	if n == nil {
		return
	}
	for c := n; ; {
		if (c.Type != html.ElementNode || fn(c)) && c.FirstChild != nil {
			c = c.FirstChild
			continue
		}
		for c != n && c.NextSibling == nil {
			c = c.Parent
		}
		if c == n {
			return
		}
		c = c.NextSibling
	}
}

// hasClass reports whether n's class list holds one of names.
func hasClass(n *html.Node, names ...string) bool {
	for c := range strings.FieldsSeq(attr(n, "class")) {
		for _, name := range names {
			if strings.EqualFold(c, name) {
				return true
			}
		}
	}
	return false
}
