package feed

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// Namespaces the parser reads. A prefix used without being declared (a
// common slip: content:encoded with no xmlns:content) reaches us as the bare
// prefix, and the usual prefixes are taken to mean their usual namespaces.
const (
	nsXML      = "http://www.w3.org/XML/1998/namespace"
	nsAtom     = "http://www.w3.org/2005/Atom"
	nsAtom03   = "http://purl.org/atom/ns#"
	nsRDF      = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsRSS090   = "http://my.netscape.com/rdf/simple/0.9/"
	nsRSS10    = "http://purl.org/rss/1.0/"
	nsContent  = "http://purl.org/rss/1.0/modules/content/"
	nsDC       = "http://purl.org/dc/elements/1.1/"
	nsDCTerms  = "http://purl.org/dc/terms/"
	nsUserland = "http://backend.userland.com/rss2"
	nsHarvard  = "http://blogs.law.harvard.edu/tech/rss"
)

// space is the vocabulary an element belongs to.
type space int

const (
	spaceOther space = iota
	spaceNone        // no namespace: RSS 0.9x/2.0, or an Atom feed missing its xmlns
	spaceRSS         // RSS 1.0, 0.90 and the namespaces some RSS 2.0 feeds declare
	spaceAtom
	spaceContent
	spaceDC
	spaceDCTerms
	spaceRDF
)

func spaceOf(s string) space {
	switch s {
	case "":
		return spaceNone
	case nsRSS10, nsRSS090, nsUserland, nsHarvard:
		return spaceRSS
	case nsAtom, nsAtom03, "atom":
		return spaceAtom
	case nsContent, "content":
		return spaceContent
	case nsDC, "dc":
		return spaceDC
	case nsDCTerms, "dcterms":
		return spaceDCTerms
	case nsRDF, "rdf":
		return spaceRDF
	}
	return spaceOther
}

// errStop unwinds the parse once MaxEntries entries are held.
var errStop = errors.New("entry limit reached")

// xmlReader walks a document with encoding/xml, one element at a time, and
// keeps the stack of xml:base values in effect (RFC 3986 resolution, each
// level against the one around it, the outermost against the feed URL).
type xmlReader struct {
	d     *xml.Decoder
	bases []*url.URL // the base of each element being read; the last is current
	langs []string   // the xml:lang in effect for each element being read
	buf   []byte     // scratch for joining an element's text

	htmlDoctype bool // the prolog holds <!DOCTYPE html ...>
}

func newXMLReader(body []byte, base *url.URL, transcoded bool) *xmlReader {
	if declaresUTF8(body) && !utf8.Valid(body) {
		// A feed that says (or implies) UTF-8 but is not: keep the text
		// around the stray bytes rather than stop at the first one.
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	// Real feeds use HTML entities (&nbsp;, &mdash;) they never declare, and
	// close elements sloppily; a lenient decoder reads what they meant.
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		l := strings.ToLower(strings.TrimSpace(label))
		if transcoded || strings.HasPrefix(l, "utf-16") || strings.HasPrefix(l, "ucs-2") || l == "unicode" {
			// Already UTF-8 (see toUTF8), or a declaration the bytes belie:
			// the decoder read it as ASCII, so the document is not UTF-16.
			return in, nil
		}
		// The WHATWG labels, as browsers read them: "iso-8859-1" and
		// "us-ascii" mean windows-1252, whose 0x80–0x9F are the curly
		// quotes and dashes publishers meant, not C1 controls.
		if r, err := charset.NewReaderLabel(label, in); err == nil {
			return r, nil
		}
		// An unknown label: read the bytes as UTF-8, stray bytes and all,
		// rather than refuse the feed. in is the rest of body, already in
		// memory, so reading it whole costs no I/O.
		rest, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		return bytes.NewReader(bytes.ToValidUTF8(rest, []byte("\uFFFD"))), nil
	}
	return &xmlReader{d: d, bases: []*url.URL{base}, langs: []string{""}}
}

// declaresUTF8 reports whether the XML declaration names UTF-8 or no
// encoding at all (which means UTF-8).
func declaresUTF8(body []byte) bool {
	if !bytes.HasPrefix(body, []byte("<?xml")) {
		return true
	}
	end := bytes.Index(body, []byte("?>"))
	if end < 0 {
		return true
	}
	decl := body[:end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return true
	}
	v := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n=\"'")
	return hasPrefixFold(v, "utf-8") || hasPrefixFold(v, "utf8")
}

func (r *xmlReader) base() *url.URL { return r.bases[len(r.bases)-1] }

// resolve makes href absolute against the base of the element being read.
func (r *xmlReader) resolve(href string) string { return resolve(href, r.base()) }

// lang is the xml:lang in effect on the element being read ("" when none).
func (r *xmlReader) lang() string { return r.langs[len(r.langs)-1] }

func (r *xmlReader) push(el xml.StartElement) {
	b, l := r.base(), r.lang()
	for _, a := range el.Attr {
		if a.Name.Space == nsXML || a.Name.Space == "xml" {
			switch a.Name.Local {
			case "base":
				b = resolveBase(a.Value, b)
			case "lang":
				l = strings.TrimSpace(a.Value)
			}
		}
	}
	r.bases = append(r.bases, b)
	r.langs = append(r.langs, l)
}

func (r *xmlReader) pop() {
	r.bases = r.bases[:len(r.bases)-1]
	r.langs = r.langs[:len(r.langs)-1]
}

// root returns the document's first element, skipping the prolog. The root
// element decides what the document is: an <rss> with an XHTML DOCTYPE is a
// feed. A DOCTYPE naming html is remembered (htmlDoctype) only to name a
// document that is no feed for what it most likely is.
func (r *xmlReader) root() (xml.StartElement, error) {
	for {
		tok, err := r.d.Token()
		if err != nil {
			if r.htmlDoctype {
				return xml.StartElement{}, notFeed("an HTML page")
			}
			if err == io.EOF {
				return xml.StartElement{}, notFeed("no root element")
			}
			return xml.StartElement{}, notFeed("not XML: " + strings.TrimPrefix(err.Error(), "xml: "))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			r.push(t)
			return t, nil
		case xml.Directive:
			if hasPrefixFold(bytes.TrimSpace(t), "doctype html") {
				r.htmlDoctype = true
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				if r.htmlDoctype {
					return xml.StartElement{}, notFeed("an HTML page")
				}
				return xml.StartElement{}, notFeed("text before the root element")
			}
		}
	}
}

// children calls fn for each child element of the element being read, with
// that child's xml:base in effect, until the element ends. fn must read the
// child to its end: with text, markup, skip or children.
func (r *xmlReader) children(fn func(el xml.StartElement, sp space) error) error {
	for {
		tok, err := r.d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			r.push(t)
			err := fn(t, spaceOf(t.Name.Space))
			r.pop()
			if err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// skip reads to the end of the element being read.
func (r *xmlReader) skip() error {
	for depth := 0; ; {
		tok, err := r.d.Token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				return nil
			}
			depth--
		}
	}
}

// text reads the rest of the element and returns all its character data —
// every text and CDATA piece, in child elements too — joined first and
// trimmed after, so that split CDATA sections lose nothing. A child <script>
// or <style> (inline XHTML) holds code, not text, and gives nothing.
func (r *xmlReader) text() (string, error) {
	r.buf = r.buf[:0]
	hiddenAt := 0 // the depth of the outermost open script or style; 0 when none
	for depth := 0; ; {
		tok, err := r.d.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if hiddenAt == 0 {
				r.buf = append(r.buf, t...)
			}
		case xml.StartElement:
			depth++
			if hiddenAt == 0 && isHiddenElement(t.Name.Local) {
				hiddenAt = depth
			}
		case xml.EndElement:
			if depth == 0 {
				return string(bytes.TrimSpace(r.buf)), nil
			}
			if depth == hiddenAt {
				hiddenAt = 0
			}
			depth--
		}
	}
}

// isHiddenElement reports whether an element's content is never text.
func isHiddenElement(local string) bool {
	return strings.EqualFold(local, "script") || strings.EqualFold(local, "style")
}

// markup reads the rest of an element holding inline XHTML (Atom
// type="xhtml") and writes its children back out as HTML, without the
// wrapping <div> the format requires, for Entry.Content.
func (r *xmlReader) markup() (string, error) {
	var b strings.Builder
	depth := 0
	// The first child is the required xhtml:div, which is not content.
	wrapped, unwrapped, started := false, false, false
	for {
		tok, err := r.d.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if !started && len(bytes.TrimSpace(t)) == 0 {
				continue
			}
			started = true
			b.WriteString(html.EscapeString(string(t)))
		case xml.StartElement:
			depth++
			if depth == 1 && !started && t.Name.Local == "div" {
				wrapped, started = true, true
				continue
			}
			started = true
			b.WriteByte('<')
			b.WriteString(t.Name.Local)
			for _, a := range t.Attr {
				if (a.Name.Space != "" && a.Name.Space != nsXML) || a.Name.Local == "xmlns" {
					continue // namespace declarations and foreign attributes
				}
				b.WriteByte(' ')
				b.WriteString(a.Name.Local)
				b.WriteString(`="`)
				b.WriteString(html.EscapeString(a.Value))
				b.WriteByte('"')
			}
			b.WriteByte('>')
		case xml.EndElement:
			if depth == 0 {
				return strings.TrimSpace(b.String()), nil
			}
			depth--
			if depth == 0 && wrapped && !unwrapped {
				unwrapped = true
				continue
			}
			if isVoid(t.Name.Local) {
				continue // <br/> is <br> in HTML; </br> would be a second break
			}
			b.WriteString("</")
			b.WriteString(t.Name.Local)
			b.WriteByte('>')
		}
	}
}

// isVoid reports whether an HTML element has no end tag.
func isVoid(name string) bool {
	switch name {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr":
		return true
	}
	return false
}

// attr returns the value of the attribute with the given local name and no
// namespace.
func attr(el xml.StartElement, local string) string {
	for _, a := range el.Attr {
		if a.Name.Local == local && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// parseXML reads an RSS, RDF or Atom document.
func parseXML(body []byte, base *url.URL, transcoded bool, o Options) (*Feed, error) {
	r := newXMLReader(body, base, transcoded)
	root, err := r.root()
	if err != nil {
		return nil, err
	}
	var f *Feed
	switch local := strings.ToLower(root.Name.Local); {
	case root.Name.Local == "rss":
		f = &Feed{Format: "rss", Version: strings.TrimSpace(attr(root, "version"))}
		err = (&rssParser{r: r, f: f, max: o.MaxEntries}).document()
	case root.Name.Local == "RDF" && spaceOf(root.Name.Space) == spaceRDF:
		f = &Feed{Format: "rss", Version: "1.0"}
		err = (&rssParser{r: r, f: f, max: o.MaxEntries}).document()
		if f.Version == "1.0" && rdfIs090(root) {
			f.Version = "0.90"
		}
	case root.Name.Local == "feed" && (spaceOf(root.Name.Space) == spaceAtom || root.Name.Space == ""):
		f = &Feed{Format: "atom", Version: "1.0"}
		if root.Name.Space == nsAtom03 {
			f.Version = "0.3"
		}
		err = (&atomParser{r: r, f: f, max: o.MaxEntries}).feed()
	case local == "html" || r.htmlDoctype:
		return nil, notFeed("an HTML page")
	case local == "urlset" || local == "sitemapindex":
		return nil, notFeed("a sitemap (root element <" + root.Name.Local + ">)")
	default:
		return nil, notFeed("root element <" + root.Name.Local + "> is not <rss>, <rdf:RDF> or an Atom <feed>")
	}
	if err != nil {
		// A break in the document (its end, or a syntax error) keeps what
		// was read before it; so does the entry limit.
		f.Truncated = true
	}
	return f, nil
}

// rdfIs090 tells RSS 0.90 (the Netscape namespace) from RSS 1.0.
func rdfIs090(root xml.StartElement) bool {
	for _, a := range root.Attr {
		if a.Value == nsRSS090 && (a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns")) {
			return true
		}
	}
	return false
}
