package extract

import (
	"net/url"
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
// host is the page's ("" when unknown): a card that opens with a
// thumbnail linking to another page of the same site is a teaser too.
func teaserList(n *html.Node, host string) bool {
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
		if c.Type == html.ElementNode && c.Data == shapes[best].tag && attr(c, "class") == shapes[best].class && !teaser(c, host) {
			return false
		}
	}
	return true
}

// teaser reports whether n is a short block with a headline link.
func teaser(n *html.Node, host string) bool {
	if textLen(n, maxTeaser+1) > maxTeaser {
		return false
	}
	return headlineIn(n, host)
}

// headlineIn reports whether n holds a headline link: a heading holding a
// link, a link holding a heading, or a link of minHeadline bytes or more
// before any other text, or (host given) a link to the same site around
// a picture before any text. Links to a fragment of the page do not count.
func headlineIn(n *html.Node, host string) bool {
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
				if !text && host != "" && textLen(c, 1) == 0 && hasTag(c, "img") && sameSite(attr(c, "href"), host) {
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
// sibling of its shape (tag and a class) and both open with a headline
// linking to the same site (host): readability took a listing of the
// site's posts, and the first is the page's. A list of products or of
// other sites' pages (a round-up) is the post itself.
func laterListEntry(n *html.Node, host string) bool {
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
	return opensWithHeadline(n, host) && opensWithHeadline(prev, host)
}

// opensWithHeadline reports whether the first heading in n, before any
// paragraph, is a link to another page of the site host.
func opensWithHeadline(n *html.Node, host string) bool {
	result, done := false, false
	elements(n, func(c *html.Node) bool {
		if done {
			return false
		}
		switch {
		case isHeading(c):
			a := firstLink(c)
			result, done = a != nil && sameSite(attr(a, "href"), host), true
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

// hasTag reports whether an element tag is under n.
func hasTag(n *html.Node, tag string) bool {
	found := false
	elements(n, func(c *html.Node) bool {
		found = found || c != n && c.Data == tag
		return !found
	})
	return found
}

// sameSite reports whether href, as readability left it (absolute),
// points to host or a host sharing its registrable part loosely (www.
// and other subdomains aside): relative links are the site's own.
func sameSite(href, host string) bool {
	if host == "" {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return false
	}
	if u.Host == "" {
		return u.Scheme == "" || u.Scheme == "http" || u.Scheme == "https"
	}
	h := strings.ToLower(u.Hostname())
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	h = strings.TrimPrefix(h, "www.")
	return h == host || strings.HasSuffix(h, "."+host) || strings.HasSuffix(host, "."+h)
}
