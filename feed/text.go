package feed

import (
	"html"
	"strings"
	"time"
	"unicode"

	xhtml "golang.org/x/net/html"

	"corpus.blog/corpusbot/internal/dates"
)

// hasFullText reports whether an HTML body holds at least FullContentChars
// characters of text: tags stripped, entities decoded, script and style
// contents left out, and each run of white space counted as one character.
// Image markup, however long, counts for nothing. It stops reading as soon
// as the threshold is reached.
func hasFullText(body string) bool {
	if len(body) < FullContentChars {
		return false // text never has more characters than its markup has bytes
	}
	z := xhtml.NewTokenizerFragment(strings.NewReader(body), "div")
	n := 0
	pendingSpace := false
	hidden := 0 // inside <script> or <style>
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return false
		case xhtml.StartTagToken:
			if isHiddenTag(z) {
				hidden++
			}
		case xhtml.EndTagToken:
			if hidden > 0 && isHiddenTag(z) {
				hidden--
			}
		case xhtml.TextToken:
			if hidden > 0 {
				continue
			}
			for _, r := range string(z.Text()) {
				if unicode.IsSpace(r) {
					pendingSpace = n > 0
					continue
				}
				if pendingSpace {
					n++
					pendingSpace = false
				}
				if n++; n >= FullContentChars {
					return true
				}
			}
		}
	}
}

func isHiddenTag(z *xhtml.Tokenizer) bool {
	name, _ := z.TagName()
	s := string(name) // no allocation: the compiler sees the comparison
	return s == "script" || s == "style"
}

// htmlText turns an HTML fragment (an Atom type="html" title) into plain text.
func htmlText(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return collapseSpace(html.UnescapeString(s))
	}
	var b strings.Builder
	z := xhtml.NewTokenizerFragment(strings.NewReader(s), "div")
	hidden := 0 // inside <script> or <style>, whose content is code, not text
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return collapseSpace(b.String())
		case xhtml.StartTagToken:
			if isHiddenTag(z) {
				hidden++
			}
		case xhtml.EndTagToken:
			if hidden > 0 && isHiddenTag(z) {
				hidden--
			}
		case xhtml.TextToken:
			if hidden == 0 {
				b.Write(z.Text())
			}
		}
	}
}

// rssTitle reads an RSS title. RSS says titles are plain text, but
// publishers escape them as HTML so often (Tom &amp;amp; Jerry) that entities
// are decoded once more, as feed readers do; tags are left alone, since
// "<div> considered harmful" is a fine title.
func rssTitle(s string) string {
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	return collapseSpace(s)
}

// collapseSpace trims s and turns each run of white space inside it into one
// space, allocating only when there is something to change. White space is
// XML's (space, tab, CR, LF): a no-break space, an em space or a thin space
// is a character the author chose, and is kept as written.
func collapseSpace(s string) string {
	clean := true
	prevSpace := true
	for i := 0; i < len(s); i++ {
		sp := isXMLSpace(s[i])
		if sp && (prevSpace || s[i] != ' ') {
			clean = false
			break
		}
		prevSpace = sp
	}
	if clean && !prevSpace {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for i := 0; i < len(s); i++ {
		if isXMLSpace(s[i]) {
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isXMLSpace reports whether c is white space in XML. Bytes of multi-byte
// UTF-8 sequences are all 0x80 or above, so a byte test is a rune test here.
func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parseDate reads a feed date in any of the forms package dates knows, in
// UTC; one it cannot read is no date.
func parseDate(s string) time.Time {
	t, ok := dates.Parse(s)
	if !ok {
		return time.Time{}
	}
	return t.UTC()
}
