package feed

import (
	"encoding/xml"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/entryurl"
)

// rssParser reads RSS 0.9x and 2.0 (<rss>) and RSS 1.0 and 0.90 (<rdf:RDF>).
type rssParser struct {
	r   *xmlReader
	f   *Feed
	max int
	alt entryurl.Alternate // an atom:link rel="alternate" in the channel: used only when <link> is missing
}

// isCore reports whether an element is RSS's own rather than an extension's.
func isCore(sp space) bool { return sp == spaceNone || sp == spaceRSS }

// document reads the children of the root: the channel, and the items, which
// RSS 1.0 puts beside the channel rather than in it (and some broken RSS 2.0
// feeds do too).
func (p *rssParser) document() error {
	err := p.r.children(func(el xml.StartElement, sp space) error {
		if isCore(sp) {
			switch el.Name.Local {
			case "channel":
				return p.channel()
			case "item":
				return p.item(el)
			}
		}
		return p.r.skip()
	})
	if p.f.Link == "" {
		p.f.Link = p.alt.Href()
	}
	return err
}

func (p *rssParser) channel() error {
	var dcTitle string // the channel's title when it has no <title> of its own
	err := p.r.children(func(el xml.StartElement, sp space) error {
		switch {
		case isCore(sp) && el.Name.Local == "title":
			t, err := p.r.text()
			if p.f.Title == "" {
				p.f.Title = rssTitle(t)
			}
			return err
		case sp == spaceDC && el.Name.Local == "title":
			return textOnce(p.r, &dcTitle)
		case isCore(sp) && el.Name.Local == "link" && !hasHref(el):
			t, err := p.r.text()
			if p.f.Link == "" {
				p.f.Link = p.r.resolve(t)
			}
			return err
		case isCore(sp) && el.Name.Local == "item":
			return p.item(el)
		case (isCore(sp) || sp == spaceDC) && el.Name.Local == "language":
			return textOnce(p.r, &p.f.Language)
		case el.Name.Local == "link" && (sp == spaceAtom || isCore(sp)):
			// An atom:link — or a <link href> written without its prefix —
			// declares pages, the hub and the feed itself; it never
			// replaces the channel's <link>.
			p.channelLink(el)
			return p.r.skip()
		}
		return p.r.skip()
	})
	if p.f.Title == "" {
		p.f.Title = rssTitle(dcTitle)
	}
	return err
}

func (p *rssParser) channelLink(el xml.StartElement) {
	href := p.r.resolve(attr(el, "href"))
	switch rel := attr(el, "rel"); {
	case entryurl.RelIs(rel, "next"):
		setOnce(&p.f.Next, href)
	case entryurl.RelIs(rel, "hub"):
		setOnce(&p.f.Hub, href)
	case entryurl.RelIs(rel, "self"):
		setOnce(&p.f.Self, href)
	case entryurl.RelIs(rel, "alternate"):
		p.alt.Offer(rel, attr(el, "type"), href)
	}
}

// rssItem gathers an item's elements, which may come in any order, before
// the rules of precedence between them are applied.
type rssItem struct {
	title, dcTitle  string
	link            string
	guid            string
	guidIsPermalink bool
	about           string // RSS 1.0 rdf:about, as written
	alt             entryurl.Alternate
	body            string
	hasBody         bool
	// Published: pubDate, else dc:date, else dcterms:issued or created, else
	// atom:published. Updated: atom:updated, else dcterms:modified.
	pubDate, dcDate, issued, atomPublished time.Time
	atomUpdated, modified                  time.Time
	creator, author                        string // dc:creator; RSS <author>
	categories                             []string
}

func (p *rssParser) item(el xml.StartElement) error {
	if len(p.f.Entries) >= p.max {
		return errStop
	}
	it := rssItem{about: attrNS(el, "about", spaceRDF)}
	err := p.r.children(func(el xml.StartElement, sp space) error {
		var err error
		switch {
		case isCore(sp):
			switch el.Name.Local {
			case "title":
				err = textOnce(p.r, &it.title)
			case "link":
				if hasHref(el) {
					it.offer(p.r, el)
					return p.r.skip()
				}
				var t string
				t, err = p.r.text()
				setOnce(&it.link, p.r.resolve(t))
			case "guid":
				permalink := !strings.EqualFold(strings.TrimSpace(attr(el, "isPermaLink")), "false")
				var t string
				if t, err = p.r.text(); it.guid == "" && t != "" {
					it.guid, it.guidIsPermalink = t, permalink
				}
			case "pubDate":
				err = dateOnce(p.r, &it.pubDate)
			case "author":
				err = textOnce(p.r, &it.author)
			case "category":
				var t string
				t, err = p.r.text()
				it.categories = addCategory(it.categories, t)
			default:
				return p.r.skip()
			}
		case sp == spaceContent && el.Name.Local == "encoded":
			var t string
			if t, err = p.r.text(); !it.hasBody {
				it.body, it.hasBody = t, true
			}
		case sp == spaceDC && el.Name.Local == "date":
			err = dateOnce(p.r, &it.dcDate)
		case sp == spaceDC && el.Name.Local == "title":
			err = textOnce(p.r, &it.dcTitle)
		case sp == spaceDC && el.Name.Local == "creator":
			err = textOnce(p.r, &it.creator)
		case sp == spaceDCTerms && (el.Name.Local == "issued" || el.Name.Local == "created"):
			err = dateOnce(p.r, &it.issued)
		case sp == spaceDCTerms && el.Name.Local == "modified":
			err = dateOnce(p.r, &it.modified)
		case sp == spaceAtom && el.Name.Local == "link":
			it.offer(p.r, el)
			return p.r.skip()
		case sp == spaceAtom && el.Name.Local == "published":
			err = dateOnce(p.r, &it.atomPublished)
		case sp == spaceAtom && el.Name.Local == "updated":
			err = dateOnce(p.r, &it.atomUpdated)
		default:
			return p.r.skip()
		}
		return err
	})
	if err != nil {
		return err // an item cut off by the end of the document is not kept
	}
	p.f.Entries = append(p.f.Entries, it.entry(p.r))
	return nil
}

// offer considers an atom:link (or an RSS <link href>) of the item.
func (it *rssItem) offer(r *xmlReader, el xml.StartElement) {
	rel, typ := attr(el, "rel"), attr(el, "type")
	if rank := it.alt.Rank(rel, typ); rank > 0 {
		it.alt.Take(r.resolve(attr(el, "href")), rank)
	}
}

func (it *rssItem) entry(r *xmlReader) Entry {
	page := entryurl.RSS{Link: it.link, Alternate: it.alt, About: entryurl.Permalink(it.about, r.resolve)}
	if it.guidIsPermalink {
		page.GUID = entryurl.Permalink(it.guid, r.resolve)
	}
	e := Entry{
		ID:         it.guid,
		Title:      rssTitle(firstOf(it.title, it.dcTitle)),
		Link:       page.URL(),
		Published:  firstDate(it.pubDate, it.dcDate, it.issued, it.atomPublished),
		Updated:    firstDate(it.atomUpdated, it.modified),
		Author:     firstOf(collapseSpace(it.creator), rssAuthor(it.author)),
		Categories: it.categories,
	}
	if e.ID == "" {
		e.ID = r.resolve(it.about)
	}
	if it.hasBody {
		e.Content, e.FullContent = it.body, hasFullText(it.body)
	}
	return e
}

func hasHref(el xml.StartElement) bool {
	for _, a := range el.Attr {
		if a.Name.Local == "href" && a.Name.Space == "" {
			return true
		}
	}
	return false
}

// attrNS returns the value of the attribute local in the vocabulary sp.
func attrNS(el xml.StartElement, local string, sp space) string {
	for _, a := range el.Attr {
		if a.Name.Local == local && spaceOf(a.Name.Space) == sp {
			return a.Value
		}
	}
	return ""
}

func setOnce(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// textOnce reads the element's text into dst unless dst already holds some:
// the first non-empty occurrence of an element wins.
func textOnce(r *xmlReader, dst *string) error {
	t, err := r.text()
	setOnce(dst, t)
	return err
}

// dateOnce reads the element as a date into dst unless dst already holds one.
func dateOnce(r *xmlReader, dst *time.Time) error {
	t, err := r.text()
	if dst.IsZero() {
		*dst = parseDate(t)
	}
	return err
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstDate(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// rssAuthor reads RSS 2.0's <author>, an e-mail address with the name in
// parentheses ("jo@example.com (Jo Bloggs)"), as the name; an author
// written as a name alone is that name, and an address alone is no name.
func rssAuthor(s string) string {
	s = collapseSpace(s)
	if i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')'); i >= 0 && j > i {
		if name := strings.TrimSpace(s[i+1 : j]); name != "" {
			return name
		}
	}
	if strings.Contains(s, "@") && !strings.Contains(s, " ") {
		return ""
	}
	return s
}

// addCategory appends a category, white space collapsed, unless it is
// empty or already there.
func addCategory(cats []string, c string) []string {
	c = collapseSpace(c)
	if c == "" || len(cats) >= maxCategories {
		return cats
	}
	for _, have := range cats {
		if have == c {
			return cats
		}
	}
	return append(cats, c)
}

// maxCategories bounds the categories kept per entry: a feed that lists
// thousands under one item cannot multiply what a parse returns.
const maxCategories = 64
