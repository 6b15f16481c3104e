package sitemap

import (
	"bytes"
	"unicode/utf8"
)

// appendDecoded appends raw character data to dst with its references
// decoded: the five predefined entities and numeric character references, as
// encoding/xml reads them. Anything else after an "&" — a bare ampersand in
// a URL's query, an HTML entity — is kept as written rather than failing the
// document, as it is what the writer most likely meant.
func appendDecoded(dst, raw []byte) []byte {
	for {
		i := bytes.IndexByte(raw, '&')
		if i < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		if r, n := reference(raw); n > 0 {
			dst = utf8.AppendRune(dst, r)
			raw = raw[n:]
			continue
		}
		dst = append(dst, '&')
		raw = raw[1:]
	}
}

// reference reads the reference at the start of b ("&amp;", "&#38;",
// "&#x26;") and returns its character and length, or a length of 0. It reads
// no further than the reference's grammar allows, so that text full of bare
// ampersands costs no more than text without.
func reference(b []byte) (rune, int) {
	if len(b) > 1 && b[1] == '#' {
		i, base := 2, rune(10)
		if i < len(b) && b[i] == 'x' {
			i, base = 3, 16
		}
		start := i
		var r rune
	digits:
		for ; i < len(b); i++ {
			c := b[i]
			var v rune
			switch {
			case '0' <= c && c <= '9':
				v = rune(c - '0')
			case base == 16 && 'a' <= c && c <= 'f':
				v = rune(c-'a') + 10
			case base == 16 && 'A' <= c && c <= 'F':
				v = rune(c-'A') + 10
			default:
				break digits
			}
			if r = r*base + v; r > utf8.MaxRune {
				return 0, 0
			}
		}
		if i == start || i == len(b) || b[i] != ';' {
			return 0, 0
		}
		// A surrogate comes out as U+FFFD, as in encoding/xml.
		return r, i + 1
	}
	i := nameEnd(b, 1)
	if i == len(b) || b[i] != ';' {
		return 0, 0
	}
	switch string(b[1:i]) {
	case "lt":
		return '<', i + 1
	case "gt":
		return '>', i + 1
	case "amp":
		return '&', i + 1
	case "apos":
		return '\'', i + 1
	case "quot":
		return '"', i + 1
	}
	return 0, 0
}

// field gathers the text of one element: every piece of character data and
// CDATA directly inside it, in order, up to maxField bytes.
type field struct {
	val  []byte // decoded so far
	raw  []byte // character data not yet decoded: a reference may span pieces
	seen bool   // the element occurred
	over bool   // the text went past maxField
}

// maxField bounds the text kept for one element: protocol URLs are under
// 2,048 characters and dates under 40.
const maxField = 8 << 10

func (f *field) reset() {
	f.val, f.raw = f.val[:0], f.raw[:0]
	f.seen, f.over = false, false
}

func (f *field) text(b []byte) {
	if f.over || len(f.val)+len(f.raw)+len(b) > maxField {
		f.over = true
		return
	}
	f.raw = append(f.raw, b...)
}

func (f *field) cdata(b []byte) {
	if f.over || len(f.val)+len(f.raw)+len(b) > maxField {
		f.over = true
		return
	}
	f.flush()
	f.val = append(f.val, b...)
}

func (f *field) flush() {
	if len(f.raw) > 0 {
		f.val = appendDecoded(f.val, f.raw)
		f.raw = f.raw[:0]
	}
}

// value is the element's text, trimmed; nil when it was too long to keep.
func (f *field) value() []byte {
	if f.over {
		return nil
	}
	f.flush()
	return trimSpace(f.val)
}
