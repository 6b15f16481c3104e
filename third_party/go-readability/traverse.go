package readability

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// hasTextContent reports whether a node or any of its descendants have text content other than spaces.
func hasTextContent(node *html.Node) bool {
	if node.Type == html.TextNode {
		return hasContent(node.Data)
	}
	for child := range node.ChildNodes() {
		if hasTextContent(child) {
			return true
		}
	}
	return false
}

type runeCounter interface {
	Count(rune)
}

type charCounter struct {
	Total int

	lastCharWasSpace bool
	seenNonSpace     bool
}

// Count keeps a number of total characters (runes) it was passed. Leading and trailing whitespace
// are ignored, and consecutive runs of whitespace between words are counted as a single space.
func (c *charCounter) Count(r rune) {
	if unicode.IsSpace(r) {
		c.lastCharWasSpace = true
		return
	}
	if c.lastCharWasSpace && c.seenNonSpace {
		c.Total += 2
	} else {
		c.Total += 1
	}
	c.lastCharWasSpace = false
	c.seenNonSpace = true
}

func (c *charCounter) ResetContext() runeCounter {
	c.lastCharWasSpace = false
	c.seenNonSpace = false
	return c
}

type commaCounter struct {
	Total int
}

func (c *commaCounter) Count(r rune) {
	switch r {
	// Commas as used in Latin, Sindhi, Chinese and various other scripts.
	// see: https://en.wikipedia.org/wiki/Comma#Comma_variants
	case '\u002C', '\u060C', '\uFE50', '\uFE10', '\uFE11', '\u2E41', '\u2E34', '\u2E32', '\uFF0C':
		c.Total++
	}
}

// countCharsAndCommas returns counts for both characters and commas in a node's
// text. Leading and trailing whitespace is not counted, nor are consecutive
// runs of whitespace.
func (ps *Parser) countCharsAndCommas(node *html.Node) (int, int) {
	chars := &charCounter{}
	commas := &commaCounter{}

	// Walk the node and its descendants to count all non-space characters and
	// different comma variants separately.
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sum := ps.summarize(n.Data)
			chars.apply(sum)
			commas.Total += sum.commas
			return
		}
		for child := range n.ChildNodes() {
			walk(child)
		}
	}
	walk(node)

	return chars.Total, commas.Total
}

// CountString counts every rune of s, as Count would one by one, with
// ASCII (nearly all of most pages) tested byte by byte: unicode.IsSpace's
// ASCII white space is '\t'…'\r' and ' '.
func (c *charCounter) CountString(s string) {
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n
			c.Count(r)
			continue
		}
		i++
		if b == ' ' || b >= '\t' && b <= '\r' {
			c.lastCharWasSpace = true
			continue
		}
		if c.lastCharWasSpace && c.seenNonSpace {
			c.Total += 2
		} else {
			c.Total++
		}
		c.lastCharWasSpace = false
		c.seenNonSpace = true
	}
}

// CountString counts the commas of s, as Count would rune by rune.
func (c *commaCounter) CountString(s string) {
	c.Total += strings.Count(s, ",")
	if !isASCII(s) {
		for _, r := range s {
			if r != ',' {
				c.Count(r)
			}
		}
	}
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// textSummary is what counting a string does to a charCounter, whatever
// the counter's state, and the string's commas. The same text nodes are
// counted again for every ancestor that is scored or cleaned; with its
// summary kept, counting a long one costs a map lookup instead of a pass
// over its runes.
type textSummary struct {
	nonSpace   bool // the string has a rune that is not white space
	leadSpace  bool // it starts with white space
	trailSpace bool // it ends with white space (an all-space string too)
	inner      int  // what it adds to Total after its first non-space rune
	commas     int
}

// summarize counts s with fresh counters.
func summarize(s string) textSummary {
	var c charCounter
	c.CountString(s)
	var commas commaCounter
	commas.CountString(s)
	sum := textSummary{nonSpace: c.seenNonSpace, trailSpace: c.lastCharWasSpace, commas: commas.Total}
	if sum.nonSpace {
		sum.inner = c.Total - 1 // a fresh counter adds 1 for the first non-space rune
	}
	r, _ := utf8.DecodeRuneInString(s)
	sum.leadSpace = unicode.IsSpace(r)
	return sum
}

// minSummarized is the shortest string whose summary is kept: a shorter
// one is counted faster than it is looked up.
const minSummarized = 48

// summarize is the summary of s, kept for the rest of the parse when s is
// long.
func (ps *Parser) summarize(s string) textSummary {
	if len(s) < minSummarized {
		return summarize(s)
	}
	if sum, ok := ps.summaries[s]; ok {
		return sum
	}
	sum := summarize(s)
	if ps.summaries == nil {
		ps.summaries = map[string]textSummary{}
	}
	ps.summaries[s] = sum
	return sum
}

// apply does to c what c.CountString does with the string sum summarises.
func (c *charCounter) apply(sum textSummary) {
	if !sum.nonSpace {
		if sum.trailSpace {
			c.lastCharWasSpace = true
		}
		return
	}
	if (c.lastCharWasSpace || sum.leadSpace) && c.seenNonSpace {
		c.Total += 2
	} else {
		c.Total++
	}
	c.Total += sum.inner
	c.lastCharWasSpace = sum.trailSpace
	c.seenNonSpace = true
}
