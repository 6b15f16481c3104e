package sitemap

import (
	"bytes"
	"errors"
	"strings"
)

// Namespaces the roots are recognised by.
const (
	rdfNS    = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	atomNS   = "http://www.w3.org/2005/Atom"
	atom03NS = "http://purl.org/atom/ns#"
)

// readXML reads the prolog, decides from the root element what the document
// is, and reads it as that.
func (rd *reader) readXML() error {
	if err := rd.declaration(); err != nil {
		return err
	}
	d := newDecoder(rd.src)
	for {
		switch d.next() {
		case tokStart:
			return rd.root(d)
		case tokEOF:
			if isHTML(d.doctype) || isHTML(d.rootName) {
				return notSitemap("an HTML page")
			}
			if err := beforeContent(d.err); err != nil {
				return err
			}
			var se *syntaxError
			if errors.As(d.err, &se) {
				return notSitemap("malformed XML before the root element (%v)", se)
			}
			return notSitemap("no root element in the first %d bytes", rd.opts.MaxBytes)
		}
		// Text before the root is not XML, but encoding/xml lets it pass and
		// so does this: a PHP warning above the sitemap costs nothing.
	}
}

// root reads the document as its root element says. The DOCTYPE does not
// decide: feeds carry an XHTML one too. It only names a document of no
// known root for what it most likely is.
func (rd *reader) root(d *decoder) error {
	if isHTML(d.rootName) {
		return notSitemap("an HTML page")
	}
	ns := d.space()
	switch string(d.local) {
	case "urlset":
		rd.sum.Format = FormatURLSet
		return rd.readURLSet(d, ns, "url", URL)
	case "sitemapindex":
		rd.sum.Format = FormatIndex
		return rd.readURLSet(d, ns, "sitemap", Sitemap)
	case "rss":
		rd.sum.Format = FormatRSS
		return rd.readFeed(d, rss2)
	case "RDF":
		if ns == rdfNS {
			rd.sum.Format = FormatRSS
			return rd.readFeed(d, rss1)
		}
	case "feed":
		if ns == atomNS || ns == atom03NS || ns == "" {
			rd.sum.Format = FormatAtom
			return rd.readFeed(d, atom)
		}
	}
	if isHTML(d.doctype) {
		return notSitemap("an HTML page")
	}
	return notSitemap("XML whose root element is <%s>", d.rootName)
}

// isHTML reports whether a root or DOCTYPE name is that of a web page: what
// many sites answer for /sitemap.xml, with status 200.
func isHTML(name string) bool {
	switch strings.ToLower(name) {
	case "html", "head", "body", "title", "meta", "link", "script", "style", "div", "p", "span", "a",
		"table", "form", "iframe", "frameset", "noscript", "br", "img", "pre", "center", "font", "b",
		"h1", "h2", "h3", "h4", "h5", "h6", "header", "main", "nav", "section":
		return true
	}
	return false
}

// declaration reads the XML declaration, if the document starts with one,
// and decodes what follows from the encoding it declares.
func (rd *reader) declaration() error {
	s := rd.src
	s.ensure(6)
	// The target must be "xml" itself, not <?xml-stylesheet ...?>.
	if ok, _ := startsWith(s.buf[s.pos:s.end], "<?xml"); !ok || s.end-s.pos < 6 || nameByte[s.buf[s.pos+5]] {
		return nil
	}
	for {
		if i := bytes.Index(s.buf[s.pos:s.end], piEnd); i >= 0 {
			decl := s.buf[s.pos : s.pos+i]
			label := pseudoAttr(decl, "encoding")
			s.pos += i + len(piEnd)
			if label == "" {
				return nil
			}
			return rd.decodeFrom(label, true)
		}
		if !s.grow() {
			if err := beforeContent(s.err); err != nil {
				return err
			}
			return notSitemap("malformed XML: the XML declaration does not end")
		}
	}
}

// pseudoAttr is the value of name="value" in an XML declaration.
func pseudoAttr(decl []byte, name string) string {
	for {
		i := bytes.Index(decl, []byte(name))
		if i < 0 {
			return ""
		}
		rest := decl[i+len(name):]
		decl = rest
		j := skipSpace(rest, 0)
		if j == len(rest) || rest[j] != '=' {
			continue
		}
		j = skipSpace(rest, j+1)
		if j == len(rest) || rest[j] != '"' && rest[j] != '\'' {
			continue
		}
		end := bytes.IndexByte(rest[j+1:], rest[j])
		if end < 0 {
			return ""
		}
		return strings.TrimSpace(string(rest[j+1 : j+1+end]))
	}
}
