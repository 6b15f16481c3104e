package readability

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// cloneTree is dom.Clone(src, true) in two allocations: the nodes of the
// copy in one slice and their attributes in another, where dom.Clone
// allocates every node and every attribute list on its own. grabArticle
// copies the whole document at the start of every pass, so this is the
// allocation of a parse's largest copy.
//
// The copy is what dom.Clone makes, field by field: each node's Type,
// DataAtom, Data and attributes (Namespace, Key, Val), a non-nil attribute
// slice even where the source has none, and not the node's Namespace
// (dom.Clone does not copy it). Each node's attributes are a slice of the
// shared array whose capacity ends at its last attribute, so an append to
// one node's attributes (dom.SetAttribute) reallocates rather than writing
// over the next node's.
//
// The nodes share one array: it stays reachable as long as any of them is,
// which for a parse is as long as its Article.
func cloneTree(src *html.Node) *html.Node {
	nodes, attrs := countTree(src)
	return copyTree(src, make([]html.Node, nodes), make([]html.Attribute, attrs))
}

// cloneTree is the package's cloneTree with its two slices taken from the
// pools of slabs (slabs.go) and kept by ps until Recycle gives them back.
func (ps *Parser) cloneTree(src *html.Node) *html.Node {
	nodes, attrs := countTree(src)
	return copyTree(src, ps.nodeSlab(nodes), ps.attrSlab(attrs))
}

// countTree is the number of nodes in src's subtree, src included, and of
// their attributes.
func countTree(src *html.Node) (nodes, attrs int) {
	for n := src; n != nil; n = nextInTree(n, src) {
		nodes++
		attrs += len(n.Attr)
	}
	return nodes, attrs
}

// copyTree is cloneTree's copy into slab and attrSlab, which hold exactly
// the nodes and attributes of src's subtree, all zero.
func copyTree(src *html.Node, slab []html.Node, attrSlab []html.Attribute) *html.Node {
	copyNode := func(s *html.Node) *html.Node {
		d := &slab[0]
		slab = slab[1:]
		d.Type, d.DataAtom, d.Data = s.Type, s.DataAtom, s.Data
		d.Attr = attrSlab[:len(s.Attr):len(s.Attr)]
		copy(d.Attr, s.Attr)
		attrSlab = attrSlab[len(s.Attr):]
		return d
	}
	root := copyNode(src)
	// Walk src in document order, d the copy of s; each copy is appended
	// to the copy of its source's parent as it is made.
	s, d := src, root
	for {
		if s.FirstChild != nil {
			s = s.FirstChild
			d = appendCopy(d, copyNode(s))
			continue
		}
		for s != src && s.NextSibling == nil {
			s, d = s.Parent, d.Parent
		}
		if s == src {
			return root
		}
		s = s.NextSibling
		d = appendCopy(d.Parent, copyNode(s))
	}
}

// appendCopy makes c, a fresh node, the last child of p, as
// (*html.Node).AppendChild does, and returns c.
func appendCopy(p, c *html.Node) *html.Node {
	c.Parent = p
	if last := p.LastChild; last != nil {
		last.NextSibling = c
		c.PrevSibling = last
	} else {
		p.FirstChild = c
	}
	p.LastChild = c
	return c
}

// nextInTree is the node after n in document order within root's
// subtree, or nil after its last.
func nextInTree(n, root *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	for n != root && n.NextSibling == nil {
		n = n.Parent
	}
	if n == root {
		return nil
	}
	return n.NextSibling
}

// getElementsByTagName is dom.GetElementsByTagName (the elements under
// root named tagName, or all of them for "*", in document order, root
// itself left out) walking the tree in a loop rather than by recursion
// through a closure.
func getElementsByTagName(root *html.Node, tagName string) []*html.Node {
	var found []*html.Node
	for n := nextInTree(root, root); n != nil; n = nextInTree(n, root) {
		if n.Type == html.ElementNode && (tagName == "*" || n.Data == tagName) {
			found = append(found, n)
		}
	}
	return found
}

// getElementsByTagNames is the elements under root named by tagNames,
// those of the first name in document order, then those of the second...:
// dom.GetElementsByTagName once per name, appended, in one walk.
func getElementsByTagNames(root *html.Node, tagNames ...string) []*html.Node {
	if len(tagNames) == 1 {
		return getElementsByTagName(root, tagNames[0])
	}
	byName := make([][]*html.Node, len(tagNames))
	total := 0
	for n := nextInTree(root, root); n != nil; n = nextInTree(n, root) {
		if n.Type != html.ElementNode {
			continue
		}
		for i, name := range tagNames {
			if name == "*" || n.Data == name {
				byName[i] = append(byName[i], n)
				total++
			}
		}
	}
	found := make([]*html.Node, 0, total)
	for _, nodes := range byName {
		found = append(found, nodes...)
	}
	return found
}

// documentElement is dom.DocumentElement, the first <html> element under
// doc, found without listing every other one.
func documentElement(doc *html.Node) *html.Node {
	for n := nextInTree(doc, doc); n != nil; n = nextInTree(n, doc) {
		if n.Type == html.ElementNode && n.Data == "html" {
			return n
		}
	}
	return nil
}

// wordTokens is regexp `(?i)\W+`'s Split(s, -1) without its empty strings: the
// runs of word characters of s, which for `(?i)\W` are ASCII letters,
// digits and '_', and the two runes that fold to ASCII letters, U+017F
// (ſ, folds to s) and U+212A (Kelvin sign, folds to k). A byte that is not
// UTF-8 is not a word character, as for the regexp.
func wordTokens(s string) []string {
	var tokens []string
	start := -1
	for i, r := range s {
		word := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') ||
			r == 0x17F || r == 0x212A
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			tokens = append(tokens, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		tokens = append(tokens, s[start:])
	}
	return tokens
}

// jsonLDScripts is dom.QuerySelectorAll(doc,
// `script[type="application/ld+json"]`) without compiling the selector on
// every parse: the <script> elements under doc, in document order, with a
// type attribute (of any namespace, as cascadia matches) whose value is
// exactly application/ld+json.
func jsonLDScripts(doc *html.Node) []*html.Node {
	var found []*html.Node
	for n := nextInTree(doc, doc); n != nil; n = nextInTree(n, doc) {
		if n.Type != html.ElementNode || n.Data != "script" {
			continue
		}
		for _, a := range n.Attr {
			if a.Key == "type" && a.Val == "application/ld+json" {
				found = append(found, n)
				break
			}
		}
	}
	return found
}

// mayHoldShare reports whether s may hold a match of `(?i)share`, which
// rxShareElements needs: "share" in any ASCII case, or a long s (U+017F),
// which folds to s. (Of s, h, a, r and e, only s folds to a rune outside
// ASCII.) False means rxShareElements cannot match s, nor a string joining
// s to others with spaces.
func mayHoldShare(s string) bool {
	for i := 0; i+5 <= len(s); i++ {
		if s[i]|0x20 == 's' && s[i+1]|0x20 == 'h' && s[i+2]|0x20 == 'a' && s[i+3]|0x20 == 'r' && s[i+4]|0x20 == 'e' {
			return true
		}
	}
	return strings.Contains(s, "\u017f")
}
