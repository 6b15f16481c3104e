package sitemap

import (
	"bytes"
	"fmt"
	"io"
)

// tokenKind is what decoder.next found.
type tokenKind uint8

const (
	tokEOF   tokenKind = iota // nothing more: the root closed, or d.err says why not
	tokStart                  // a start tag: d.prefix, d.local, d.attrs
	tokEnd                    // the end of the element at d.depth: d.prefix, d.local
	tokText                   // character data as written, references not yet decoded
	tokCDATA                  // a piece of a CDATA section, literal
)

// attr is an attribute of the current start tag, its value as written.
type attr struct{ prefix, local, value []byte }

// decoder is a streaming reader of XML, as much of it as sitemaps and feeds
// use: elements with namespace prefixes and declarations, attributes, text,
// CDATA, comments, processing instructions and a DOCTYPE, which are skipped.
// encoding/xml's Decoder allocates for every token; this one hands out slices
// of its buffer instead, valid until the next call, and allocates only for
// namespace declarations.
//
// It reads every document encoding/xml reads, with the same names,
// namespaces and text (FuzzAgainstEncodingXML holds the entries of sitemaps
// read both ways to that), and forgives a little more: a bare "&" or an
// unknown entity is kept as written, a "<" in an attribute value or "--" in
// a comment is let pass, and characters outside the XML range are left for
// the caller to judge.
type decoder struct {
	src   *source
	stack elemStack
	ns    nsStack

	prefix, local []byte // the element of tokStart and tokEnd
	attrs         []attr // of tokStart
	text          []byte // of tokText and tokCDATA
	depth         int    // of the element that starts or ends, or that holds the text; the root is 1

	pendingEnd bool   // the start tag was self-closing: its end comes next
	popped     bool   // the element at depth has ended: leave it on the next call
	skipTo     []byte // inside a comment or processing instruction: skip to this
	inCDATA    bool

	rootName string // the root's name as soon as it is seen, even in a broken tag
	doctype  string // the name a DOCTYPE before the root gave
	err      error  // why tokEOF came before the root closed
}

func newDecoder(src *source) *decoder { return &decoder{src: src} }

type status uint8

const (
	stOK   status = iota
	stMore        // the token goes on past the buffered bytes
	stBad         // malformed; d.err holds the syntax error
)

// next reads the next token. Whatever follows the end of the root element is
// never read.
func (d *decoder) next() tokenKind {
	if d.popped {
		d.popped = false
		d.ns.pop(d.depth)
		d.stack.pop()
		d.depth--
		if d.depth == 0 {
			return tokEOF
		}
	}
	if d.pendingEnd {
		d.pendingEnd = false
		d.popped = true
		return tokEnd
	}
	if d.err != nil {
		return tokEOF
	}
	s := d.src
	for {
		if s.pos == s.end && !s.fill() {
			return d.stop()
		}
		b := s.buf[s.pos:s.end]
		if d.inCDATA {
			if i := bytes.Index(b, cdataEnd); i >= 0 {
				d.inCDATA = false
				s.pos += i + len(cdataEnd)
				if i == 0 {
					continue
				}
				d.text = b[:i]
				return tokCDATA
			}
			// Hold back what may be the start of "]]>".
			n := len(b) - (len(cdataEnd) - 1)
			if n <= 0 {
				if !s.fill() {
					return d.stop()
				}
				continue
			}
			s.pos += n
			d.text = b[:n]
			return tokCDATA
		}
		if d.skipTo != nil {
			if i := bytes.Index(b, d.skipTo); i >= 0 {
				s.pos += i + len(d.skipTo)
				d.skipTo = nil
				continue
			}
			s.pos += max(0, len(b)-(len(d.skipTo)-1))
			if !s.fill() {
				return d.stop()
			}
			continue
		}
		if b[0] != '<' {
			i := bytes.IndexByte(b, '<')
			if i < 0 {
				i = len(b)
			}
			s.pos += i
			d.text = b[:i]
			return tokText
		}
		n, kind, st := d.markup(b)
		switch st {
		case stMore:
			if !s.grow() {
				return d.stop()
			}
			continue
		case stBad:
			return tokEOF
		}
		s.pos += n
		if kind != tokEOF {
			return kind
		}
	}
}

var (
	cdataEnd   = []byte("]]>")
	commentEnd = []byte("-->")
	piEnd      = []byte("?>")
)

// markup reads the tag, comment, CDATA start, processing instruction or
// declaration at the start of b. A kind of tokEOF means there is nothing to
// report and n bytes are to be skipped.
func (d *decoder) markup(b []byte) (n int, kind tokenKind, st status) {
	if len(b) < 2 {
		return 0, tokEOF, stMore
	}
	switch b[1] {
	case '/':
		return d.endTag(b)
	case '?':
		d.skipTo = piEnd
		return 2, tokEOF, stOK
	case '!':
		if ok, more := startsWith(b, "<!--"); more {
			return 0, tokEOF, stMore
		} else if ok {
			d.skipTo = commentEnd
			return 4, tokEOF, stOK
		}
		if ok, more := startsWith(b, "<![CDATA["); more {
			return 0, tokEOF, stMore
		} else if ok {
			d.inCDATA = true
			return len("<![CDATA["), tokEOF, stOK
		}
		return d.directive(b)
	}
	return d.startTag(b)
}

// bad records a syntax error at the current position.
func (d *decoder) bad(msg string) (int, tokenKind, status) {
	d.err = &syntaxError{line: d.src.line(), msg: msg}
	return 0, tokEOF, stBad
}

// stop ends the document where the source ran out.
func (d *decoder) stop() tokenKind {
	s := d.src
	switch {
	case s.err == io.EOF:
		where := "before the root element"
		if d.depth > 0 {
			where = "inside <" + string(d.stack.top()) + ">"
		}
		d.err = &syntaxError{line: s.line(), msg: "unexpected end of file " + where}
	case s.err == nil: // the buffer is full
		d.err = &syntaxError{line: s.line(), msg: fmt.Sprintf("a tag or declaration longer than %d bytes", maxBuf)}
	default:
		d.err = s.err
	}
	return tokEOF
}

// space is the namespace of the current element.
func (d *decoder) space() string { return d.ns.lookup(d.prefix) }

// attrSpace is the namespace of an attribute: none without a prefix.
func (d *decoder) attrSpace(a attr) string {
	if a.prefix == nil {
		return ""
	}
	return d.ns.lookup(a.prefix)
}

// attr is the value, decoded, of the current element's attribute in
// namespace space (empty for an unprefixed one) and with that local name.
func (d *decoder) attr(space, local string) (string, bool) {
	for _, a := range d.attrs {
		if string(a.local) == local && d.attrSpace(a) == space {
			return string(appendDecoded(nil, a.value)), true
		}
	}
	return "", false
}
