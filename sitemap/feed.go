package sitemap

import (
	"net/url"
	"strings"

	"corpus.blog/corpusbot/internal/dates"
	"corpus.blog/corpusbot/internal/entryurl"
)

// feedKind is the dialect of a feed read as a sitemap.
type feedKind uint8

const (
	rss2 feedKind = iota // RSS 0.91–2.0: <rss><channel><item>
	rss1                 // RSS 1.0 and 0.90: <rdf:RDF><item>
	atom                 // Atom 1.0 and 0.3: <feed><entry>
)

const (
	dcNS     = "http://purl.org/dc/elements/1.1/"
	rss10NS  = "http://purl.org/rss/1.0/"
	rss090NS = "http://my.netscape.com/rdf/simple/0.9/"
)

// feedItem is what one item or entry says of its page: the text of the
// elements that may name it as they are read, and each candidate, resolved
// against the base in force at it, for entryurl's rule.
type feedItem struct {
	link  field // RSS <link> text
	guid  field // RSS <guid>, unless isPermaLink="false"
	id    field // Atom <id>
	rss   entryurl.RSS
	atom  entryurl.Atom
	dates [3]field
}

func (it *feedItem) reset() {
	it.link.reset()
	it.guid.reset()
	it.id.reset()
	for i := range it.dates {
		it.dates[i].reset()
	}
	it.rss, it.atom = entryurl.RSS{}, entryurl.Atom{}
}

// readFeed gives the items of an RSS or Atom feed whose root has just been
// read, as Google reads feeds offered as sitemaps: an item's page is the URL
// internal/entryurl's rule gives, the one the feed parser gives too (RSS
// <link>, else a permalink <guid>, else an atom:link alternate, else
// rdf:about; Atom's first alternate or rel-less link of an HTML type or
// none, else another alternate, else a permalink <id>) and its lastmod the date it
// was last changed, if the feed says, else the date it was published (RSS
// <pubDate>, else <dc:date>; Atom <updated>, else <published>). Relative
// links are resolved against xml:base and then the base URL of the options.
func (rd *reader) readFeed(d *decoder, kind feedKind) error {
	root := d.space()
	bases := baseStack{initial: rd.opts.Base}
	bases.enter(d)
	var (
		it         feedItem
		into       *field
		itemDepth  int // of the open item or entry; 0 outside one
		itemSpace  string
		inChannel  bool
		childDepth int
	)
	for {
		switch d.next() {
		case tokStart:
			bases.enter(d)
			switch {
			case itemDepth == 0:
				if d.depth == 2 && kind != atom && string(d.local) == "channel" {
					inChannel = true
				}
				if isItem(d, kind, root, inChannel) {
					itemDepth, itemSpace, childDepth = d.depth, d.space(), d.depth+1
					it.reset()
					if kind == rss1 {
						about, _ := d.attr(rdfNS, "about")
						it.rss.About = entryurl.Permalink(about, bases.resolve)
					}
				}
			case d.depth == childDepth:
				into = it.child(d, kind, itemSpace, &bases)
			}
		case tokText:
			if into != nil && d.depth == childDepth {
				into.text(d.text)
			}
		case tokCDATA:
			if into != nil && d.depth == childDepth {
				into.cdata(d.text)
			}
		case tokEnd:
			switch {
			case itemDepth > 0 && d.depth == childDepth:
				switch into {
				case &it.link:
					it.rss.Link = bases.resolve(string(it.link.value()))
				case &it.guid:
					it.rss.GUID = entryurl.Permalink(string(it.guid.value()), bases.resolve)
				case &it.id:
					it.atom.ID = entryurl.Permalink(string(it.id.value()), bases.resolve)
				}
				into = nil
			case itemDepth > 0 && d.depth == itemDepth:
				itemDepth = 0
				if err := rd.emitItem(&it, kind); err != nil {
					return err
				}
			case d.depth == 2:
				inChannel = false
			}
			bases.leave(d.depth)
		case tokEOF:
			return d.err
		}
	}
}

// isItem reports whether the element just started is an item or entry.
func isItem(d *decoder, kind feedKind, root string, inChannel bool) bool {
	switch kind {
	case rss2:
		return string(d.local) == "item" && d.space() == root && (d.depth == 2 || d.depth == 3 && inChannel)
	case rss1:
		ns := d.space()
		return string(d.local) == "item" && (ns == rss10NS || ns == rss090NS) && (d.depth == 2 || d.depth == 3 && inChannel)
	}
	return string(d.local) == "entry" && d.space() == root && d.depth == 2
}

// child is the field that gathers the text of an item's child element, if
// any; Atom links are taken from their attributes at once.
func (it *feedItem) child(d *decoder, kind feedKind, space string, bases *baseStack) *field {
	ns := d.space()
	local := string(d.local)
	var f *field
	switch {
	case kind == atom && ns == space:
		switch local {
		case "link":
			it.atomLink(d, bases, &it.atom.Alternate)
		case "id":
			f = &it.id
		case "updated", "modified": // Atom 1.0, Atom 0.3
			f = &it.dates[0]
		case "published", "issued":
			f = &it.dates[1]
		case "created":
			f = &it.dates[2]
		}
	case kind != atom && ns == space:
		switch local {
		case "link":
			f = &it.link
		case "guid":
			if perma, ok := d.attr("", "isPermaLink"); !ok || !strings.EqualFold(strings.TrimSpace(perma), "false") {
				f = &it.guid
			}
		case "pubDate":
			f = &it.dates[0]
		}
	case kind != atom && ns == dcNS && local == "date":
		f = &it.dates[1]
	case kind != atom && ns == atomNS && local == "link":
		it.atomLink(d, bases, &it.rss.Alternate)
	}
	if f == nil || f.seen {
		return nil
	}
	f.seen = true
	return f
}

// atomLink offers one Atom <link> to alt, resolving its href only when it
// would be chosen.
func (it *feedItem) atomLink(d *decoder, bases *baseStack, alt *entryurl.Alternate) {
	rel, _ := d.attr("", "rel")
	typ, _ := d.attr("", "type")
	rank := alt.Rank(rel, typ)
	if rank == 0 {
		return
	}
	if href, ok := d.attr("", "href"); ok {
		alt.Take(bases.resolve(href), rank)
	}
}

// emitItem gives an item's page, if it names one.
func (rd *reader) emitItem(it *feedItem, kind feedKind) error {
	loc := it.rss.URL()
	if kind == atom {
		loc = it.atom.URL()
	}
	if loc == "" || !validLoc([]byte(loc)) {
		rd.sum.Skipped++
		return nil
	}
	e := Entry{Type: URL, Loc: loc}
	var seen bool
	for i := range it.dates {
		if f := &it.dates[i]; f.seen {
			seen = true
			if t, ok := dates.Parse(string(f.value())); ok {
				e.Lastmod = t
				break
			}
		}
	}
	if seen && e.Lastmod.IsZero() && rd.sum.Entries() < rd.opts.MaxEntries {
		rd.sum.BadLastmod++
	}
	return rd.give(e)
}

// baseStack is the xml:base in force at each open element.
type baseStack struct {
	initial *url.URL
	list    []baseAt
}

type baseAt struct {
	depth int
	u     *url.URL
}

func (b *baseStack) current() *url.URL {
	if n := len(b.list); n > 0 {
		return b.list[n-1].u
	}
	return b.initial
}

// enter takes the xml:base of the element just started.
func (b *baseStack) enter(d *decoder) {
	v, ok := d.attr(xmlNS, "base")
	if !ok {
		return
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil {
		return
	}
	if cur := b.current(); cur != nil {
		u = cur.ResolveReference(u)
	}
	b.list = append(b.list, baseAt{d.depth, u})
}

// leave drops the xml:base of the element at depth, which has ended.
func (b *baseStack) leave(depth int) {
	for n := len(b.list); n > 0 && b.list[n-1].depth >= depth; n-- {
		b.list = b.list[:n-1]
	}
}

// resolve makes a link absolute against the base in force; "" when it
// cannot be.
func (b *baseStack) resolve(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if u.IsAbs() {
		return ref
	}
	cur := b.current()
	if cur == nil {
		return ""
	}
	return cur.ResolveReference(u).String()
}
