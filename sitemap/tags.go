package sitemap

import (
	"bytes"
	"fmt"
	"strings"
)

// The markup the decoder must see whole: tags and declarations. Each
// function reads from the start of b and says stMore when b ends first; it
// changes no state until it has all it needs, so it can simply be run again
// once more bytes have arrived.

// startsWith reports whether b starts with p, or whether b is too short to
// tell and a prefix of p.
func startsWith(b []byte, p string) (ok, more bool) {
	if len(b) < len(p) {
		return false, string(b) == p[:len(b)]
	}
	return string(b[:len(p)]) == p, false
}

// startTag reads a start tag with its attributes, and enters the element
// and the namespaces it declares.
func (d *decoder) startTag(b []byte) (int, tokenKind, status) {
	j := nameEnd(b, 1)
	if j == len(b) {
		return 0, tokEOF, stMore
	}
	if j == 1 {
		return d.bad("expected element name after <")
	}
	name := b[1:j]
	if d.depth == 0 && d.rootName == "" {
		d.rootName = string(name)
	}
	d.attrs = d.attrs[:0]
	empty := false
	i := j
	for {
		i = skipSpace(b, i)
		if i == len(b) {
			return 0, tokEOF, stMore
		}
		if b[i] == '>' {
			i++
			break
		}
		if b[i] == '/' {
			if i+1 == len(b) {
				return 0, tokEOF, stMore
			}
			if b[i+1] != '>' {
				return d.bad("expected /> in element")
			}
			empty = true
			i += 2
			break
		}
		k := nameEnd(b, i)
		if k == len(b) {
			return 0, tokEOF, stMore
		}
		if k == i {
			return d.bad("expected attribute name in element")
		}
		an := b[i:k]
		i = skipSpace(b, k)
		if i == len(b) {
			return 0, tokEOF, stMore
		}
		if b[i] != '=' {
			return d.bad("attribute name without = in element")
		}
		i = skipSpace(b, i+1)
		if i == len(b) {
			return 0, tokEOF, stMore
		}
		q := b[i]
		if q != '"' && q != '\'' {
			return d.bad("unquoted or missing attribute value in element")
		}
		e := bytes.IndexByte(b[i+1:], q)
		if e < 0 {
			return 0, tokEOF, stMore
		}
		p, l := splitName(an)
		d.attrs = append(d.attrs, attr{prefix: p, local: l, value: b[i+1 : i+1+e]})
		i += e + 2
	}
	// The whole tag is here: only now change any state.
	if !d.stack.push(name) {
		return d.bad(fmt.Sprintf("elements nested deeper than %d levels or with %d bytes of names", maxDepth, maxNameBytes))
	}
	d.depth++
	d.prefix, d.local = splitName(name)
	for _, a := range d.attrs {
		var prefix []byte
		switch {
		case a.prefix == nil && string(a.local) == "xmlns":
			// the default namespace
		case string(a.prefix) == "xmlns":
			prefix = a.local
		default:
			continue
		}
		if !d.ns.push(string(prefix), string(appendDecoded(nil, a.value)), d.depth) {
			return d.bad(fmt.Sprintf("more than %d bytes of namespace declarations", maxNSBytes))
		}
	}
	d.pendingEnd = empty
	return i, tokStart, stOK
}

// endTag reads an end tag, which must close the innermost open element.
func (d *decoder) endTag(b []byte) (int, tokenKind, status) {
	j := nameEnd(b, 2)
	if j == len(b) {
		return 0, tokEOF, stMore
	}
	if j == 2 {
		return d.bad("expected element name after </")
	}
	name := b[2:j]
	i := skipSpace(b, j)
	if i == len(b) {
		return 0, tokEOF, stMore
	}
	if b[i] != '>' {
		return d.bad("invalid characters between </" + string(name) + " and >")
	}
	if d.depth == 0 {
		return d.bad("unexpected end element </" + string(name) + ">")
	}
	if top := d.stack.top(); !bytes.Equal(name, top) {
		return d.bad("element <" + string(top) + "> closed by </" + string(name) + ">")
	}
	d.prefix, d.local = splitName(name)
	d.popped = true
	return i + 1, tokEnd, stOK
}

// directive skips a declaration such as <!DOCTYPE ...>, with its internal
// subset: as in encoding/xml, quoted text, nested <...> and comments do not
// end it, and the byte after "<!" is taken as it is, whatever it is.
func (d *decoder) directive(b []byte) (int, tokenKind, status) {
	var quote byte
	depth := 0
	for i := 3; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			if depth == 0 {
				if d.depth == 0 {
					d.noteDoctype(b[2:i])
				}
				return i + 1, tokEOF, stOK
			}
			depth--
		case c == '<':
			ok, more := startsWith(b[i:], "<!--")
			if more {
				return 0, tokEOF, stMore
			}
			if !ok {
				depth++
				continue
			}
			e := bytes.Index(b[i+4:], commentEnd)
			if e < 0 {
				return 0, tokEOF, stMore
			}
			i += 4 + e + 2
		}
	}
	return 0, tokEOF, stMore
}

// noteDoctype keeps the document type a DOCTYPE names ("html" for a web page).
func (d *decoder) noteDoctype(decl []byte) {
	const kw = "DOCTYPE"
	if len(decl) <= len(kw) || !strings.EqualFold(string(decl[:len(kw)]), kw) {
		return
	}
	rest := decl[skipSpace(decl, len(kw)):]
	d.doctype = string(rest[:nameEnd(rest, 0)])
}

// splitName splits a qualified name at its colon, as encoding/xml does: only
// when both sides are non-empty.
func splitName(name []byte) (prefix, local []byte) {
	i := bytes.IndexByte(name, ':')
	if i < 1 || i > len(name)-2 {
		return nil, name
	}
	return name[:i], name[i+1:]
}

// nameEnd is the index after the name starting at b[i]: ASCII letters,
// digits, "_:.-" and any non-ASCII byte, as encoding/xml reads names.
func nameEnd(b []byte, i int) int {
	for i < len(b) && nameByte[b[i]] {
		i++
	}
	return i
}

var nameByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '_' || c == ':' || c == '.' || c == '-'
	}
	return t
}()

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
