package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// Teasers of other stories inside the chosen block. A teaser is a short
// block (at most maxTeaser bytes of text) that opens with or holds a
// headline link: a heading that is a link, a link around a heading, or a
// link of at least minHeadline bytes that its text opens with. A teaser
// list is an element of at least minTeasers children of one shape (the
// same tag and class), two thirds of its children or more, every one a
// teaser: a grid of cards, a "more stories" row. It is left out whole.
const (
	maxTeaser   = 600
	minHeadline = 20
	minTeasers  = 3
)

// teaserTags are the elements a card or entry is made of.
var teaserTags = map[string]bool{"div": true, "li": true, "article": true, "section": true, "aside": true}

// teaserList reports whether n is a list of teasers of other stories.
func teaserList(n *html.Node) bool {
	// The most common shape among n's element children.
	var shapes [4]struct {
		tag, class string
		count      int
	}
	kinds, elems := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || silentTags[c.Data] {
			continue
		}
		elems++
		if !teaserTags[c.Data] {
			continue
		}
		class := attr(c, "class")
		found := false
		for i := 0; i < kinds; i++ {
			if shapes[i].tag == c.Data && shapes[i].class == class {
				shapes[i].count++
				found = true
				break
			}
		}
		if !found {
			if kinds == len(shapes) {
				return false // too many shapes for a list of cards
			}
			shapes[kinds].tag, shapes[kinds].class, shapes[kinds].count = c.Data, class, 1
			kinds++
		}
	}
	best := -1
	for i := 0; i < kinds; i++ {
		if best < 0 || shapes[i].count > shapes[best].count {
			best = i
		}
	}
	if best < 0 || shapes[best].count < minTeasers || shapes[best].count*3 < elems*2 {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == shapes[best].tag && attr(c, "class") == shapes[best].class && !teaser(c) {
			return false
		}
	}
	return true
}

// teaser reports whether n is a short block with a headline link.
func teaser(n *html.Node) bool {
	if textLen(n, maxTeaser+1) > maxTeaser {
		return false
	}
	return headlineIn(n)
}

// headlineIn reports whether n holds a headline link: a heading holding a
// link, a link holding a heading, or a link of minHeadline bytes or more
// before any other text. Links to a fragment of the page do not count.
func headlineIn(n *html.Node) bool {
	text := false // text seen before, in document order
	var walk func(n *html.Node, depth int) bool
	walk = func(n *html.Node, depth int) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				text = text || strings.TrimSpace(c.Data) != ""
			case c.Type != html.ElementNode || silentTags[c.Data]:
			case isHeading(c):
				if firstLink(c) != nil {
					return true
				}
				text = text || textLen(c, 1) > 0
			case c.Data == "a" && linkOut(c):
				if hasHeading(c) || !text && textLen(c, minHeadline) >= minHeadline {
					return true
				}
				text = text || textLen(c, 1) > 0
			case depth < 32:
				if walk(c, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(n, 0)
}

// laterListEntry reports whether n, not an <article>, follows an element
// sibling of its shape (tag and a class) and both open with a headline:
// readability took a listing of posts, and the first is the page's.
func laterListEntry(n *html.Node) bool {
	if !teaserTags[n.Data] || n.Data == "article" {
		return false
	}
	class := attr(n, "class")
	if class == "" {
		return false
	}
	var prev *html.Node
	for s := n.PrevSibling; s != nil; s = s.PrevSibling {
		if s.Type == html.ElementNode {
			prev = s
			break
		}
	}
	if prev == nil || prev.Data != n.Data || attr(prev, "class") != class {
		return false
	}
	return opensWithHeadline(n) && opensWithHeadline(prev)
}

// opensWithHeadline reports whether the first heading in n, before any
// paragraph, is a link out of the page.
func opensWithHeadline(n *html.Node) bool {
	result, done := false, false
	elements(n, func(c *html.Node) bool {
		if done {
			return false
		}
		switch {
		case isHeading(c):
			result, done = firstLink(c) != nil, true
			return false
		case c.Data == "p":
			done = true
			return false
		}
		return true
	})
	return result
}

func isHeading(n *html.Node) bool {
	return len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
}

// firstLink is the first link out of the page under n, or nil.
func firstLink(n *html.Node) *html.Node {
	var a *html.Node
	elements(n, func(c *html.Node) bool {
		if a == nil && c.Data == "a" && linkOut(c) {
			a = c
		}
		return a == nil
	})
	return a
}

// linkOut reports whether a is a link to another page (not a fragment).
func linkOut(a *html.Node) bool {
	href := strings.TrimSpace(attr(a, "href"))
	return href != "" && href[0] != '#' && !strings.HasPrefix(strings.ToLower(href), "javascript:")
}

// hasHeading reports whether a heading is under n.
func hasHeading(n *html.Node) bool {
	found := false
	elements(n, func(c *html.Node) bool {
		if c != n && isHeading(c) {
			found = true
		}
		return !found
	})
	return found
}
