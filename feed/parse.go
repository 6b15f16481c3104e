package feed

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// Parse reads a feed document with the default Options. feedURL, the address
// the document was fetched from, is the base for relative links after any
// xml:base; it may be "", and then relative links stay relative. Every error
// is a *NotFeedError.
func Parse(body []byte, feedURL string) (*Feed, error) {
	return Options{}.Parse(body, feedURL)
}

// Parse reads a feed document within the limits of o. It does no I/O and
// keeps no reference to body.
func (o Options) Parse(body []byte, feedURL string) (*Feed, error) {
	o = o.withDefaults()
	cut := false
	if len(body) > o.MaxBytes {
		body, cut = body[:o.MaxBytes], true
	}
	body, transcoded := toUTF8(body)
	body = trimLeadingSpace(body)
	if len(body) == 0 {
		return nil, notFeed("empty document")
	}
	base := parseBase(feedURL)
	var f *Feed
	var err error
	switch c := body[0]; {
	case c == '{':
		f, err = parseJSON(body, base, o)
	case c == '[':
		return nil, notFeed("a JSON array, not a JSON Feed object")
	case c == '<':
		if looksLikeHTML(body) {
			return nil, notFeed("an HTML page")
		}
		f, err = parseXML(body, base, transcoded, o)
	default:
		return nil, notFeed(fmt.Sprintf("neither XML nor JSON (starts with %q)", prefix(body, 16)))
	}
	if err != nil {
		return nil, err
	}
	f.Truncated = f.Truncated || cut
	f.Language = strings.TrimSpace(f.Language)
	for i := range f.Entries {
		setOnce(&f.Entries[i].Language, f.Language)
	}
	f.IsComments = isCommentTitle(f.Title) || IsCommentFeedURL(feedURL) || IsCommentFeedURL(f.Self)
	return f, nil
}

// toUTF8 strips a byte order mark and turns UTF-32 and UTF-16 (by their BOM,
// or by the zero bytes around the "<" that must open an XML document) into
// UTF-8, which is all encoding/xml and encoding/json read. It reports whether
// it transcoded, so that the XML declaration's encoding="UTF-16" is then
// ignored. UTF-32 is looked for first: its little-endian BOM and "<" begin
// as UTF-16's do.
func toUTF8(b []byte) ([]byte, bool) {
	if out, ok := fromUTF32(b); ok {
		return out, true
	}
	var enc *unicode.Endianness
	be, le := unicode.BigEndian, unicode.LittleEndian
	switch {
	case bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")):
		return b[3:], false
	case bytes.HasPrefix(b, []byte("\xFE\xFF")), bytes.HasPrefix(b, []byte("\x00<")):
		enc = &be
	case bytes.HasPrefix(b, []byte("\xFF\xFE")), bytes.HasPrefix(b, []byte("<\x00")):
		enc = &le
	default:
		return b, false
	}
	out, err := unicode.UTF16(*enc, unicode.UseBOM).NewDecoder().Bytes(b)
	if err != nil {
		return b, false
	}
	return bytes.TrimPrefix(out, []byte("\xEF\xBB\xBF")), true
}

// fromUTF32 decodes a document in UTF-32, known by its BOM or by the three
// zero bytes beside the "<" that opens it, to UTF-8. A document with
// characters beyond Unicode is not decoded, and then fails as the bytes it is.
func fromUTF32(b []byte) ([]byte, bool) {
	var endian utf32.Endianness
	switch {
	case bytes.HasPrefix(b, []byte("\x00\x00\xFE\xFF")), bytes.HasPrefix(b, []byte("\x00\x00\x00<")):
		endian = utf32.BigEndian
	case bytes.HasPrefix(b, []byte("\xFF\xFE\x00\x00")), bytes.HasPrefix(b, []byte("<\x00\x00\x00")):
		endian = utf32.LittleEndian
	default:
		return nil, false
	}
	out, err := utf32.UTF32(endian, utf32.UseBOM).NewDecoder().Bytes(b)
	if err != nil {
		return nil, false
	}
	return bytes.TrimPrefix(out, []byte("\xEF\xBB\xBF")), true
}

func trimLeadingSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// looksLikeHTML catches the pages many sites serve with status 200 where a
// feed used to be, before the XML decoder makes a less helpful complaint.
// A page that opens with a DOCTYPE, a comment or anything else is caught
// later by its root element: a DOCTYPE alone does not decide, since feeds
// carry an XHTML one too.
func looksLikeHTML(b []byte) bool {
	return hasPrefixFold(b, "<html")
}

func hasPrefixFold(b []byte, p string) bool {
	return len(b) >= len(p) && bytes.EqualFold(b[:len(p)], []byte(p))
}

func prefix(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	for !utf8.Valid(b) && len(b) > 0 {
		b = b[:len(b)-1]
	}
	return string(b)
}

// parseBase reads the feed URL as the outermost base; an unusable one is no base.
func parseBase(s string) *url.URL {
	if s == "" || len(s) > MaxURLLength {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil
	}
	return u
}
