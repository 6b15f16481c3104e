package extract

import (
	"strconv"
	"strings"

	"corpus.blog/corpusbot/internal/mdtext"
	"golang.org/x/net/html"
)

// The Markdown form of the text is written from the same blocks as the
// plain text, in the same walk: each block, as it is kept, is marked with
// its place in the plain text and what it is (a heading and its level, a
// code block, a paragraph) inside which containers (quotes, list items,
// with their markers and nesting). The Markdown is then put together from
// the marks over the plain text as it came out, block by block normalised
// as the whole text is, so the plain text is written exactly as before and
// the Markdown holds the same words.

// mark is one block of the plain text as Markdown.
type mark struct {
	start, end  int    // the block's bytes in the plain text, before normalising
	first, cont string // the containers' prefixes of its first line and of the others
	heading     int    // 1–6 for a heading, else 0
	pre         bool   // a preformatted block: a fenced code block
}

// Kinds of container.
const (
	inQuote = iota + 1
	inList
	inItem
	inHeading
)

// container is an element around the blocks being written that changes
// how they are marked.
type container struct {
	kind    int
	level   int    // inHeading: 1–6
	ordered bool   // inList
	next    int    // inList, ordered: the number of its next item
	marker  string // inItem: "- " or "3. "; inList nested directly in a list: its indent
	used    bool   // inItem: its marker has been written
}

// open notes that the element tag (n, when from an HTML tree) starts a
// container, if it is one; close, called for every tag open was, ends it.
func (t *textBuilder) open(tag string, n *html.Node) {
	switch tag {
	case "blockquote":
		t.nest = append(t.nest, container{kind: inQuote})
	case "ul", "ol", "menu":
		c := container{kind: inList, ordered: tag == "ol", next: 1}
		if c.ordered && n != nil {
			if s, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); err == nil && s >= 0 && s < 1e9 {
				c.next = s
			}
		}
		if k := len(t.nest); k > 0 && t.nest[k-1].kind == inList {
			// A list straight inside a list (no <li> between): indented as
			// if in the outer list's last item.
			c.marker = strings.Repeat(" ", len(t.nest[k-1].itemMarker()))
		}
		t.nest = append(t.nest, c)
	case "li":
		marker := "- "
		for i := len(t.nest) - 1; i >= 0; i-- {
			if t.nest[i].kind == inList {
				marker = t.nest[i].itemMarker()
				t.nest[i].next++
				break
			}
		}
		t.nest = append(t.nest, container{kind: inItem, marker: marker})
	case "h1", "h2", "h3", "h4", "h5", "h6":
		t.nest = append(t.nest, container{kind: inHeading, level: int(tag[1] - '0')})
	}
}

func (t *textBuilder) close(tag string) {
	switch tag {
	case "blockquote", "ul", "ol", "menu", "li", "h1", "h2", "h3", "h4", "h5", "h6":
		t.nest = t.nest[:len(t.nest)-1]
	}
}

// itemMarker is the marker of the list's next item.
func (c *container) itemMarker() string {
	if c.ordered {
		return strconv.Itoa(c.next) + ". "
	}
	return "- "
}

// markBlock marks the block of out[start:end] just written.
func (t *textBuilder) markBlock(start, end int, pre bool) {
	m := mark{start: start, end: end, pre: pre}
	if len(t.nest) > 0 {
		// The prefixes are written into scratch bytes and made strings
		// only when they differ from the last block's: the paragraphs of
		// a quote, the items of a list, share them, and a string each was
		// a fifth of the bytes the text's rendering allocated.
		first, cont := t.prefix[:0], t.contPrefix[:0]
		for i := range t.nest {
			c := &t.nest[i]
			switch c.kind {
			case inQuote:
				first = append(first, "> "...)
				cont = append(cont, "> "...)
			case inList:
				first = append(first, c.marker...)
				cont = append(cont, c.marker...)
			case inItem:
				if c.used {
					first = appendSpaces(first, len(c.marker))
				} else {
					first = append(first, c.marker...)
					c.used = true
				}
				cont = appendSpaces(cont, len(c.marker))
			case inHeading:
				m.heading = c.level
			}
		}
		t.prefix, t.contPrefix = first, cont
		m.first, m.cont = t.reuse(first), t.reuse(cont)
	}
	t.marks = append(t.marks, m)
}

// reuse is b as a string: the last block's first-line or continuation
// prefix when it is the same, else a new one.
func (t *textBuilder) reuse(b []byte) string {
	if k := len(t.marks); k > 0 {
		if last := t.marks[k-1]; last.cont == string(b) {
			return last.cont
		} else if last.first == string(b) {
			return last.first
		}
	}
	return string(b)
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

// rendered is text as the textBuilder wrote it, with its marks.
type rendered struct {
	text  string
	marks []mark
}

// markdown is r as Markdown: each block normalised as the plain text is,
// the chunks that are only one of self (the page's own address, taken out
// of the plain text by withoutSelf) left out, then written with its marks.
// normal is r's whole text normalised (normalise of its ToValidUTF8), as
// the plain text was made, and selfTaken whether withoutSelf took
// anything out of it.
//
// The blocks of r.text are apart by "\n\n", and normalising carries
// nothing across a line break: no run of invalid bytes, invisible
// character or composition spans one, and a line feed is a starter that
// nothing composes with. So normal is r's blocks normalised one by one,
// joined the same way: when it is r.text itself, every block is normal
// already; and the chunks withoutSelf cuts a block into are chunks of
// normal, so when it took none out of normal it takes none out of a
// block. Each check was the most of the Markdown's time, block by block.
func (r rendered) markdown(normal string, selfTaken bool, self ...string) string {
	var b strings.Builder
	b.Grow(len(r.text) + len(r.text)/16)
	blocksNormal := normal == r.text
	var prevCont string
	for _, m := range r.marks {
		s := r.text[m.start:m.end]
		if !blocksNormal {
			s = normalise(strings.ToValidUTF8(s, "\uFFFD"))
		}
		if selfTaken {
			s = withoutSelf(s, self...)
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		if b.Len() > 0 {
			// A blank line between blocks, inside the quotes they share.
			b.WriteByte('\n')
			b.WriteString(strings.TrimRight(commonQuotes(prevCont, m.first), " "))
			b.WriteByte('\n')
		}
		prevCont = m.cont
		switch {
		case m.pre:
			fence := mdtext.Fence(s)
			b.WriteString(m.first)
			b.WriteString(fence)
			for line := range strings.SplitSeq(s, "\n") {
				b.WriteByte('\n')
				writePrefixed(&b, m.cont, line)
			}
			b.WriteByte('\n')
			b.WriteString(m.cont)
			b.WriteString(fence)
		case m.heading > 0:
			// An ATX heading is one line.
			line := mdtext.Line(strings.Join(strings.Fields(s), " "))
			if strings.HasSuffix(line, "#") {
				// "Rank #" would read as a closing sequence.
				i := strings.TrimRight(line, "#")
				line = i + `\` + line[len(i):]
			}
			b.WriteString(m.first)
			b.WriteString("######"[:m.heading])
			b.WriteByte(' ')
			b.WriteString(line)
		default:
			lines := strings.Split(s, "\n")
			for i, l := range lines {
				if i == 0 {
					b.WriteString(m.first)
					b.WriteString(mdtext.Line(l))
				} else {
					writePrefixed(&b, m.cont, mdtext.Line(l))
				}
				if i+1 < len(lines) {
					if strings.TrimSpace(l) != "" && strings.TrimSpace(lines[i+1]) != "" {
						b.WriteByte('\\') // a <br>: a hard line break
					}
					b.WriteByte('\n')
				}
			}
		}
	}
	return b.String()
}

// writePrefixed writes a line after its containers' prefix, the prefix's
// trailing spaces left off an empty line.
func writePrefixed(b *strings.Builder, prefix, line string) {
	if line == "" {
		b.WriteString(strings.TrimRight(prefix, " "))
		return
	}
	b.WriteString(prefix)
	b.WriteString(line)
}

// commonQuotes is the quote markers ("> ") that a and b open with alike.
func commonQuotes(a, b string) string {
	i := 0
	for i+1 < len(a) && i+1 < len(b) && a[i] == '>' && b[i] == '>' && a[i+1] == ' ' && b[i+1] == ' ' {
		i += 2
	}
	return a[:i]
}
