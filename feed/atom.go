package feed

import (
	"encoding/xml"
	"html"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/entryurl"
)

// atomParser reads Atom 1.0 (RFC 4287), and Atom 0.3 where it names things
// differently (issued, modified, created).
type atomParser struct {
	r   *xmlReader
	f   *Feed
	max int
}

// isAtom reports whether an element is Atom's own. An Atom feed that forgot
// its xmlns is read as Atom too.
func isAtom(sp space) bool { return sp == spaceAtom || sp == spaceNone }

func (p *atomParser) feed() error {
	p.f.Language = p.r.lang()
	var alt entryurl.Alternate
	var author string // the feed's, which an entry without its own has (RFC 4287 §4.2.1)
	err := p.r.children(func(el xml.StartElement, sp space) error {
		if !isAtom(sp) {
			return p.r.skip()
		}
		switch el.Name.Local {
		case "title":
			t, err := p.textConstruct(el)
			setOnce(&p.f.Title, t)
			return err
		case "link":
			href := p.r.resolve(attr(el, "href"))
			switch rel := attr(el, "rel"); {
			case entryurl.RelIs(rel, "alternate"):
				alt.Offer(rel, attr(el, "type"), href)
			case entryurl.RelIs(rel, "next"):
				setOnce(&p.f.Next, href)
			case entryurl.RelIs(rel, "hub"):
				setOnce(&p.f.Hub, href)
			case entryurl.RelIs(rel, "self"):
				setOnce(&p.f.Self, href)
			}
		case "entry":
			return p.entry()
		case "author":
			return p.author(&author)
		}
		return p.r.skip()
	})
	p.f.Link = alt.Href()
	for i := range p.f.Entries {
		setOnce(&p.f.Entries[i].Author, author)
	}
	return err
}

// textConstruct reads an Atom text construct (title, summary) as plain text.
func (p *atomParser) textConstruct(el xml.StartElement) (string, error) {
	t, err := p.r.text()
	switch entryurl.MediaType(attr(el, "type")) {
	case "html", "text/html":
		return htmlText(t), err
	}
	// "text", and "xhtml", whose text() is already the text of its markup.
	return collapseSpace(t), err
}

type atomEntry struct {
	title, id                  string
	alt                        entryurl.Alternate
	published, issued, created time.Time
	updated, modified          time.Time
	body                       string
	hasBody, full              bool
	author                     string
	categories                 []string
}

func (p *atomParser) entry() error {
	if len(p.f.Entries) >= p.max {
		return errStop
	}
	var e atomEntry
	lang := p.r.lang()
	err := p.r.children(func(el xml.StartElement, sp space) error {
		if !isAtom(sp) {
			return p.r.skip()
		}
		var err error
		switch el.Name.Local {
		case "title":
			var t string
			t, err = p.textConstruct(el)
			setOnce(&e.title, t)
		case "link":
			rel, typ := attr(el, "rel"), attr(el, "type")
			if rank := e.alt.Rank(rel, typ); rank > 0 {
				e.alt.Take(p.r.resolve(attr(el, "href")), rank)
			}
			return p.r.skip()
		case "id":
			err = textOnce(p.r, &e.id)
		case "published":
			err = dateOnce(p.r, &e.published)
		case "updated":
			err = dateOnce(p.r, &e.updated)
		case "issued": // Atom 0.3
			err = dateOnce(p.r, &e.issued)
		case "created": // Atom 0.3
			err = dateOnce(p.r, &e.created)
		case "modified": // Atom 0.3
			err = dateOnce(p.r, &e.modified)
		case "author":
			return p.author(&e.author)
		case "category":
			label := collapseSpace(attr(el, "label"))
			e.categories = addCategory(e.categories, firstOf(label, attr(el, "term")))
			return p.r.skip()
		case "content":
			if e.hasBody {
				return p.r.skip()
			}
			err = p.content(el, &e)
		default:
			// <summary> is not the post, and <source> describes another
			// feed whose title and links are not this entry's.
			return p.r.skip()
		}
		return err
	})
	if err != nil {
		return err
	}
	entry := Entry{
		ID:          e.id,
		Title:       e.title,
		Link:        entryurl.Atom{Alternate: e.alt, ID: entryurl.Permalink(e.id, p.r.resolve)}.URL(),
		Published:   firstDate(e.published, e.issued, e.created),
		Updated:     firstDate(e.updated, e.modified),
		Content:     e.body,
		FullContent: e.full,
		Author:      e.author,
		Categories:  e.categories,
		Language:    lang,
	}
	p.f.Entries = append(p.f.Entries, entry)
	return nil
}

// author reads an <author> person construct's name into dst, unless dst
// holds one already: the first named author is the entry's.
func (p *atomParser) author(dst *string) error {
	return p.r.children(func(el xml.StartElement, sp space) error {
		if isAtom(sp) && el.Name.Local == "name" {
			t, err := p.r.text()
			setOnce(dst, collapseSpace(t))
			return err
		}
		return p.r.skip()
	})
}

// content reads <content> by its type (RFC 4287 §4.1.3). Content given by
// src is elsewhere, and a non-text media type is base64: neither is a body.
func (p *atomParser) content(el xml.StartElement, e *atomEntry) error {
	if strings.TrimSpace(attr(el, "src")) != "" {
		return p.r.skip()
	}
	switch typ := entryurl.MediaType(attr(el, "type")); {
	case typ == "html" || typ == "text/html":
		t, err := p.r.text()
		e.body, e.hasBody, e.full = t, true, hasFullText(t)
		return err
	case typ == "xhtml" || strings.HasSuffix(typ, "+xml") || strings.HasSuffix(typ, "/xml"):
		m, err := p.r.markup()
		e.body, e.hasBody, e.full = m, true, hasFullText(m)
		return err
	case typ == "" || typ == "text" || strings.HasPrefix(typ, "text/"):
		// Counted as HTML all the same: untyped content full of escaped
		// markup is common, and its tags are not text.
		t, err := p.r.text()
		e.body, e.hasBody, e.full = html.EscapeString(t), true, hasFullText(t)
		return err
	}
	return p.r.skip()
}
