package extract

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/unicode/norm"
)

// Limits of the decoding steps, so that a hostile page cannot make them
// slow: the <meta> prescan stops at the end of the head or after
// maxPrescan bytes, and detection looks at the first maxDetect bytes.
const (
	maxPrescan = 512 << 10
	maxDetect  = 64 << 10
)

// Where the encoding of a page came from (the order of the WHATWG
// encoding sniffing algorithm, with the prescan extended to the whole head).
const (
	fromBOM         = "bom"
	fromHeader      = "content-type"
	fromMeta        = "meta"
	fromUTF8        = "utf-8"
	fromDetection   = "detection"
	fromMislabelled = "utf-8-despite-label"
)

// parseHTML decodes the first MaxBytes of body as a browser would and parses
// them. Truncating mid-tag is harmless: the HTML parser closes what is open.
// The tokenizer's buffer comes from a pool and goes back to it; the tree's
// nodes do too, through nodes, when it is not nil: then no node of the tree
// may be used after nodes.Recycle().
func parseHTML(body []byte, contentType string, nodes *html.NodeRecycler) (*html.Node, error) {
	if len(body) > MaxBytes {
		body = body[:MaxBytes]
	}
	text, _, _ := decode(body, contentType)
	opts := []html.ParseOption{html.ParseOptionPooledBuffer()}
	if nodes != nil {
		opts = append(opts, html.ParseOptionNodeRecycler(nodes))
	}
	doc, err := html.ParseWithOptions(bytes.NewReader(text), opts...)
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	return doc, nil
}

// decode turns body into valid UTF-8 and says which encoding it took and
// why. The order is the browser's: a byte order mark; the charset of the
// response's Content-Type; a <meta charset> or <meta http-equiv> anywhere in
// the head (browsers look at the first 1,024 bytes only and re-parse when a
// later one turns up; pages with a long head rely on that); UTF-8 when the
// bytes are UTF-8; else detection from the bytes.
//
// One deliberate departure: bytes that are valid UTF-8 with multi-byte
// sequences in them are read as UTF-8 even when the header or the meta
// names a single-byte encoding (windows-1252, ISO-8859-x…). Servers that
// label everything ISO-8859-1 are common, while text in a single-byte
// encoding that happens to form valid UTF-8 sequences throughout is
// vanishingly rare, so this only ever undoes mojibake.
func decode(body []byte, contentType string) (text []byte, name, from string) {
	if enc, n, ok := bom(body); ok {
		skip := 2
		if n == "utf-8" {
			skip = 3
		}
		return decodeWith(enc, body, skip), n, fromBOM
	}
	if _, params, ok := strings.Cut(contentType, ";"); ok {
		if label := charsetParam(params); label != "" {
			if enc, n := charset.Lookup(label); enc != nil {
				return decodeDeclared(enc, n, body, fromHeader)
			}
		}
	}
	if label := prescan(body); label != "" {
		if enc, n := charset.Lookup(label); enc != nil {
			// A meta cannot make a page UTF-16: the bytes that said so
			// were ASCII-compatible (the HTML standard's rule).
			if n == "utf-16le" || n == "utf-16be" {
				enc, n = encoding.Nop, "utf-8"
			}
			return decodeDeclared(enc, n, body, fromMeta)
		}
	}
	if mostlyUTF8(body) {
		return validUTF8(body), "utf-8", fromUTF8
	}
	enc, n := detect(body)
	return decodeWith(enc, body, 0), n, fromDetection
}

// decodeDeclared decodes body in the declared encoding, unless it is a
// single-byte one and the bytes are in fact UTF-8 (see decode).
func decodeDeclared(enc encoding.Encoding, name string, body []byte, from string) ([]byte, string, string) {
	if name == "utf-8" {
		if utf8.Valid(body) {
			return body, name, from
		}
		if clearlyNotUTF8(body) {
			// Declared UTF-8 but written in something else (an old
			// template's meta kept over a legacy database): the bytes win.
			enc, n := detect(body)
			return decodeWith(enc, body, 0), n, fromDetection
		}
		return validUTF8(body), name, from
	}
	if singleByte(name) && isUTF8WithMultibyte(body) {
		return validUTF8(body), "utf-8", fromMislabelled
	}
	return decodeWith(enc, body, 0), name, from
}

// singleByte reports whether a WHATWG encoding name is a single-byte one.
func singleByte(name string) bool {
	return strings.HasPrefix(name, "windows-") || strings.HasPrefix(name, "iso-8859-") ||
		strings.HasPrefix(name, "koi8") || name == "macintosh" || name == "ibm866" || name == "x-mac-cyrillic"
}

// bom recognises a UTF-8 or UTF-16 byte order mark and says how long it is.
func bom(b []byte) (encoding.Encoding, string, bool) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return encoding.Nop, "utf-8", true
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be", true
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le", true
	}
	return nil, "", false
}

// decodeWith decodes body after skip bytes (a BOM) with enc; encoding.Nop
// stands for UTF-8. The result is always valid UTF-8.
func decodeWith(enc encoding.Encoding, body []byte, skip int) []byte {
	body = body[skip:]
	if enc == encoding.Nop {
		return validUTF8(body)
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		// x/text decoders replace what they cannot map rather than fail;
		// should one fail, the bytes as UTF-8 beat nothing.
		return validUTF8(body)
	}
	return validUTF8(out)
}

// validUTF8 is b with each invalid byte sequence replaced by U+FFFD, so
// that nothing downstream sees one; b itself (not a copy) when it is valid.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

// charsetParam is the charset parameter of a Content-Type's parameters, or "".
// Read by hand rather than with mime.ParseMediaType, which refuses a whole
// value for one bad parameter that browsers would skip.
func charsetParam(params string) string {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "charset") {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// prescan looks for the encoding a <meta> declares, as the HTML standard's
// prescan does, but through the whole head rather than its first 1,024
// bytes: it stops at </head>, <body>, or maxPrescan bytes. Comments, scripts
// and styles are skipped, so a "charset=" inside them does not count. A
// byte scan finds the tags; only a <meta> is handed to the tokenizer (a
// tokenizer over a long head costs as much as the rest of the decoding).
func prescan(b []byte) string {
	if len(b) > maxPrescan {
		b = b[:maxPrescan]
	}
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return ""
		}
		i += j
		rest := b[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			end := bytes.Index(rest[4:], []byte("-->"))
			if end < 0 {
				return ""
			}
			i += 4 + end + 3
			continue
		case hasPrefixFold(rest, "<script"), hasPrefixFold(rest, "<style"):
			close := "</script"
			if hasPrefixFold(rest, "<style") {
				close = "</style"
			}
			end := indexFold(rest[1:], close)
			if end < 0 {
				return ""
			}
			i += 1 + end + len(close)
			continue
		case hasPrefixFold(rest, "</head"), hasPrefixFold(rest, "<body"):
			return ""
		case hasPrefixFold(rest, "<meta") && len(rest) > 5 && isTagEnd(rest[5]):
			// Most <meta>s declare no encoding, and a tokenizer costs a
			// 4 KiB buffer: only a tag that says "charset" (or has a
			// character reference, which could spell it) is tokenized.
			if tag := rest[:startTagEnd(rest)]; indexFold(tag, "charset") < 0 && bytes.IndexByte(tag, '&') < 0 {
				i++
				continue
			}
			z := html.NewTokenizer(bytes.NewReader(rest))
			if tt := z.Next(); tt == html.StartTagToken || tt == html.SelfClosingTagToken {
				if label := metaCharset(z); label != "" {
					return label
				}
			}
		}
		i++
	}
	return ""
}

// startTagEnd is the length of the start tag at the head of b as the HTML
// tokenizer (golang.org/x/net/html) reads it: up to and including the '>'
// that closes it outside a quoted attribute value, or all of b. It follows
// the tokenizer's readTag step by step, so that the bytes it bounds are
// exactly those the tokenizer would read attributes from.
func startTagEnd(b []byte) int {
	i := 1 // the '<'
	for i < len(b) && !isHTMLSpace(b[i]) && b[i] != '/' && b[i] != '>' {
		i++ // the tag name
	}
	if i < len(b) && isHTMLSpace(b[i]) {
		i++
	}
	i = skipHTMLSpace(b, i)
	for i < len(b) {
		if b[i] == '>' {
			return i + 1
		}
		// The attribute's name: an '=' first is part of it.
		start := i
		for i < len(b) {
			c := b[i]
			if c == '=' && i == start {
				i++
				continue
			}
			if c == '=' || isHTMLSpace(c) || c == '/' || c == '>' {
				break
			}
			i++
		}
		// Its value, if an '=' follows.
		i = skipHTMLSpace(b, i)
		if i >= len(b) {
			return len(b)
		}
		switch c := b[i]; {
		case c == '/':
			i++
		case c == '=':
			i = skipHTMLSpace(b, i+1)
			if i >= len(b) {
				return len(b)
			}
			switch q := b[i]; q {
			case '>':
			case '"', '\'':
				j := bytes.IndexByte(b[i+1:], q)
				if j < 0 {
					return len(b)
				}
				i += 1 + j + 1
			default:
				for i++; i < len(b) && b[i] != '>'; i++ {
					if isHTMLSpace(b[i]) {
						i++
						break
					}
				}
			}
		}
		i = skipHTMLSpace(b, i)
	}
	return len(b)
}

// isHTMLSpace reports whether c is white space between the parts of a tag.
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

// skipHTMLSpace is the index of the first byte of b at or after i that is
// not white space.
func skipHTMLSpace(b []byte, i int) int {
	for i < len(b) && isHTMLSpace(b[i]) {
		i++
	}
	return i
}

// isTagEnd reports whether c ends a tag name.
func isTagEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>'
}

// hasPrefixFold reports whether b starts with the ASCII string p, ignoring
// case.
func hasPrefixFold(b []byte, p string) bool {
	return len(b) >= len(p) && bytes.EqualFold(b[:len(p)], []byte(p))
}

// indexFold is the index of the ASCII string p in b, ignoring case, or -1.
func indexFold(b []byte, p string) int {
	first := [2]byte{p[0], p[0]}
	if 'a' <= first[0] && first[0] <= 'z' {
		first[1] = first[0] - 'a' + 'A'
	}
	for i := 0; i+len(p) <= len(b); {
		j := bytes.IndexAny(b[i:], string(first[:]))
		if j < 0 {
			return -1
		}
		i += j
		if hasPrefixFold(b[i:], p) {
			return i
		}
		i++
	}
	return -1
}

// metaCharset is the encoding label one <meta> declares: its charset
// attribute, or the charset in the content of an http-equiv Content-Type.
func metaCharset(z *html.Tokenizer) string {
	var cs, content string
	equiv := false
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "charset":
			cs = strings.TrimSpace(string(v))
		case "http-equiv":
			equiv = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
		case "content":
			content = string(v)
		}
		if !more {
			break
		}
	}
	if cs != "" {
		return cs
	}
	if equiv {
		if i := strings.Index(strings.ToLower(content), "charset="); i >= 0 {
			v := strings.TrimSpace(content[i+len("charset="):])
			v = strings.Trim(v, `"'`)
			if j := strings.IndexAny(v, "; \t\"'"); j >= 0 {
				v = v[:j]
			}
			return v
		}
	}
	return ""
}

// mostlyUTF8 reports whether b, undeclared, is to be read as UTF-8: valid
// UTF-8, or UTF-8 with a few bad sequences among many good multi-byte ones
// (a page assembled from parts, one of which was pasted in another
// encoding, or a body cut mid-character), which a detector would misjudge
// as a whole.
func mostlyUTF8(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	good, bad := multibyteCounts(b)
	return good >= 8 && bad*50 <= good
}

// clearlyNotUTF8 reports whether b, declared UTF-8, is plainly something
// else: many invalid sequences, more than valid multi-byte ones. A few stray
// bytes in a UTF-8 page stay U+FFFD, as a browser shows them.
func clearlyNotUTF8(b []byte) bool {
	if utf8.Valid(b) {
		return false
	}
	good, bad := multibyteCounts(b)
	return bad >= 8 && bad > good
}

// multibyteCounts counts b's valid multi-byte UTF-8 sequences (good) and
// its bytes that begin none (bad).
func multibyteCounts(b []byte) (good, bad int) {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			bad++
		} else {
			good++
		}
		i += n
	}
	return good, bad
}

// isUTF8WithMultibyte reports whether b is valid UTF-8 holding at least one
// multi-byte sequence (pure ASCII says nothing about the encoding).
func isUTF8WithMultibyte(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// detect guesses the encoding of undeclared bytes that are not UTF-8 with
// ICU's detector (github.com/gogs/chardet, which go-readability already
// brings in), trusted only when confident; else windows-1252, the default
// browsers use for most locales.
func detect(b []byte) (encoding.Encoding, string) {
	if len(b) > maxDetect {
		b = b[:maxDetect]
	}
	// DetectAll, not DetectBest: the recognisers answer from goroutines in
	// any order and DetectBest keeps whichever tied answer came first, so
	// the same page could decode two ways. Ties go to the smaller name.
	if all, err := chardet.NewHtmlDetector().DetectAll(b); err == nil && len(all) > 0 && all[0].Confidence >= 50 {
		best := all[0]
		for _, r := range all[1:] {
			if r.Confidence == best.Confidence && r.Charset < best.Charset {
				best = r
			}
		}
		if enc, n := charset.Lookup(best.Charset); enc != nil && n != "utf-8" {
			return enc, n
		}
	}
	enc, n := charset.Lookup("windows-1252")
	return enc, n
}

// Characters that are not part of the text a reader reads: the soft
// hyphen (a hint where a word may break), the zero-width space, the word
// joiner and a BOM inside the text. Zero-width joiners and non-joiners are
// kept: they change how Persian, Indic scripts and emoji are written.
var invisible = strings.NewReplacer("\u00AD", "", "\u200B", "", "\u2060", "", "\uFEFF", "")

// normalise is s with the invisible characters out of its words, in
// Unicode normal form C, so that the same word is always the same bytes.
func normalise(s string) string {
	// Four substring searches (vectorised) rather than one rune by rune.
	if strings.Contains(s, "\u00AD") || strings.Contains(s, "\u200B") || strings.Contains(s, "\u2060") || strings.Contains(s, "\uFEFF") {
		s = invisible.Replace(s)
	}
	return norm.NFC.String(s)
}
