package sourcelist

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Real OPML exports are often not well-formed XML: a feed's title copied
// into an attribute with its "<", "&" or '"' unescaped, a tag left open, a
// file cut short. One such character in one title should not cost the
// other subscriptions, so when the XML decoder gives up on a document whose
// root is <opml>, the document is read again tag by tag (readLeniently):
// each <outline …> start tag is found in the text, and its xmlUrl, htmlUrl,
// title, text and type attributes are read by name, each on its own, so
// that a broken attribute before them does not hide them. A URL has no raw
// quote, space or angle bracket, so a URL attribute's value is unambiguous
// even in a broken tag; a title may come out cut at a stray quote. An
// outline that names a URL attribute whose value cannot be read is
// returned as a rejected entry on its line, so that the caller can say
// what was left out.

// outlineTag finds the start of an <outline> start tag (any case).
var outlineTag = regexp.MustCompile(`(?i)<outline[\s/>]`)

// tagBoundary ends an outline's region: the next outline start or end tag,
// or the end of the body or document.
var tagBoundary = regexp.MustCompile(`(?i)<outline[\s/>]|</outline\s*>|</body\s*>|</opml\s*>`)

// leniently read attributes: each is looked for by name, after a space or a
// quote (a broken quote before it may have glued it to the previous value).
var (
	lenientAttr = map[string]*regexp.Regexp{}
	urlAttrName = regexp.MustCompile(`(?i)(?:^|[\s"'])(?:xmlurl|htmlurl)\s*=`)
	commentRe   = regexp.MustCompile(`(?s)<!--.*?-->`)
	declEncRe   = regexp.MustCompile(`^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']`)
)

func init() {
	for _, name := range []string{"xmlurl", "htmlurl"} {
		// A URL holds no raw quote, white space or angle bracket.
		lenientAttr[name] = regexp.MustCompile(`(?i)(?:^|[\s"'])` + name + `\s*=\s*(?:"([^"\s<>]*)"|'([^'\s<>]*)'|([^\s"'<>]+))`)
	}
	for _, name := range []string{"title", "text", "type"} {
		lenientAttr[name] = regexp.MustCompile(`(?i)(?:^|[\s"'])` + name + `\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	}
}

// readLeniently reads the outlines of an OPML document the XML decoder
// refused with bad (see above). It returns bad itself when it finds no
// outline that names a URL: then nothing could be read.
func readLeniently(data []byte, bad *ParseError, maxEntries int) ([]Entry, error) {
	text := lenientText(data)
	// Comments are blanked, their line breaks kept, so that an outline
	// commented out is not read and the lines still count right.
	text = commentRe.ReplaceAllStringFunc(text, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n"))
	})
	var entries []Entry
	named := 0 // outlines that name a URL attribute, read or not
	starts := outlineTag.FindAllStringIndex(text, -1)
	for _, st := range starts {
		region := text[st[0]+1:]
		if end := tagBoundary.FindStringIndex(region); end != nil {
			region = region[:end[0]]
		}
		// The start tag ends at its first ">" when the tag is whole; a
		// stray ">" in a title cuts it short, so the URL attributes are
		// looked for in the whole region up to the next tag.
		line := 1 + strings.Count(text[:st[0]], "\n")
		e, ok := lenientOutline(region, line)
		if urlAttrName.MatchString(region) {
			named++
		}
		if !ok {
			continue
		}
		if len(entries) == maxEntries {
			return nil, fmt.Errorf("sourcelist: line %d: %w", line, ErrTooManyEntries)
		}
		entries = append(entries, e)
	}
	if named == 0 {
		return nil, bad
	}
	return entries, nil
}

// lenientOutline is the entry of one outline's region of text (its tag
// and what follows up to the next tag), by outlineEntry's rules.
func lenientOutline(region string, line int) (Entry, bool) {
	start := xml.StartElement{Name: xml.Name{Local: "outline"}}
	urls := 0
	for _, name := range []string{"xmlurl", "htmlurl", "title", "text", "type"} {
		m := lenientAttr[name].FindStringSubmatch(region)
		if m == nil {
			continue
		}
		if name == "xmlurl" || name == "htmlurl" {
			urls++
		}
		v := m[1] + m[2]
		if len(m) > 3 {
			v += m[3]
		}
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: name}, Value: html.UnescapeString(v)})
	}
	if urls == 0 && urlAttrName.MatchString(region) {
		// It names a feed or a site, but not in a form that can be read.
		e, _ := outlineEntry(start, line) // for its title
		e = Entry{Line: line, Title: e.Title}
		e.Err = errors.New("outline not readable: its xmlUrl or htmlUrl has no value that can be told apart from the text around it")
		return e, true
	}
	return outlineEntry(start, line)
}

// lenientText is data as UTF-8 text: decoded from the encoding its XML
// declaration names, else taken as UTF-8 when it is valid UTF-8, else as
// Windows-1252 (what an undeclared 8-bit export most often is).
func lenientText(data []byte) string {
	if m := declEncRe.FindSubmatch(data); m != nil {
		label := strings.ToLower(string(m[1]))
		if label != "utf-8" && label != "utf8" {
			if enc, _ := charset.Lookup(label); enc != nil {
				if out, err := enc.NewDecoder().Bytes(data); err == nil {
					return string(out)
				}
			}
		}
	}
	if utf8.Valid(data) {
		return string(data)
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return string(out)
}

// fromUTF16 is data transcoded to UTF-8 when it starts with a UTF-16 byte
// order mark (which Go's XML decoder does not read); ok says it was.
func fromUTF16(data []byte) (out []byte, ok bool) {
	var enc = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	default:
		return data, false
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return data, false
	}
	// The declaration still says UTF-16, which the text no longer is.
	if m := declEncRe.FindSubmatchIndex(out); m != nil {
		out = append(append(append([]byte{}, out[:m[2]]...), "UTF-8"...), out[m[3]:]...)
	}
	return out, true
}
