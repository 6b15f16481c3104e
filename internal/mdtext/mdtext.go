// Package mdtext writes text as Markdown that reads as the same text: the
// characters Markdown would take for markup are escaped, so that a
// renderer shows the words as written. It is shared by the extractor
// (which marks headings, lists, quotes and code itself) and the export
// (which escapes the plain text of posts stored before the extractor kept
// a Markdown form).
package mdtext

import "strings"

// Plain is plain text (blocks separated by a blank line, lines by a line
// break) as Markdown: each block a paragraph, each line escaped.
func Plain(text string) string {
	if text == "" {
		return ""
	}
	blocks := strings.Split(text, "\n\n")
	for i, b := range blocks {
		lines := strings.Split(b, "\n")
		for j, l := range lines {
			lines[j] = Line(l)
		}
		blocks[i] = strings.Join(lines, "\n")
	}
	return strings.Join(blocks, "\n\n")
}

// inline marks the bytes escaped wherever they are in a line: code, emphasis,
// links, HTML and tables (| is a cell border in GitHub's Markdown), and the
// backslash itself.
var inline = [128]bool{'\\': true, '`': true, '*': true, '_': true, '[': true, ']': true, '<': true, '|': true}

// Line is one line of running text as Markdown: leading white space taken
// off (four spaces would make a code block), the inline markup characters
// escaped, an entity-like & escaped, and at its start what would make it a
// heading, quote, list item, rule or setext underline.
func Line(l string) string {
	l = strings.TrimLeft(l, " \t")
	if l == "" {
		return l
	}
	n := 0
	for i := 0; i < len(l); i++ {
		if c := l[i]; c < 128 && (inline[c] || c == '&' && entityAt(l, i)) {
			n++
		}
	}
	lead := leading(l)
	if n == 0 && lead < 0 {
		return l
	}
	var b strings.Builder
	b.Grow(len(l) + n + 1)
	for i := 0; i < len(l); i++ {
		c := l[i]
		if i == lead || c < 128 && (inline[c] || c == '&' && entityAt(l, i)) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// leading is the index of the byte at the start of l that makes it block
// markup ("# ", "> ", "- ", "+ ", "=", "~~~", "1. ", "1) "), or -1.
func leading(l string) int {
	if strings.IndexByte("#>+-=~", l[0]) >= 0 {
		return 0
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')') {
		return i
	}
	return -1
}

// entityAt reports whether the & at i starts what reads as an entity
// reference (&amp; &#38;).
func entityAt(l string, i int) bool {
	if i+1 >= len(l) {
		return false
	}
	c := l[i+1]
	return c == '#' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Fence is the backtick fence for a code block holding code: three
// backticks, or one more than the longest run of backticks in it.
func Fence(code string) string {
	longest, run := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
