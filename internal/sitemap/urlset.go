package sitemap

// readURLSet gives the entries of a <urlset> or <sitemapindex> whose root
// has just been read. An entry is an element named entry (url or sitemap)
// directly inside the root, and its <loc> and <lastmod> are its direct
// children; all of them must be in the root's namespace, whichever that is
// (the sitemaps.org one, an old Google one, none), so that image:loc,
// video:*, news:* and xhtml:link are passed over without losing their url.
// Of several <loc>s or <lastmod>s the first counts.
func (rd *reader) readURLSet(d *decoder, space, entry string, typ Type) error {
	var (
		inEntry      bool
		loc, lastmod field
		into         *field // the field whose text is being gathered
	)
	for {
		switch d.next() {
		case tokStart:
			switch d.depth {
			case 2:
				inEntry = string(d.local) == entry && d.space() == space
				loc.reset()
				lastmod.reset()
			case 3:
				if !inEntry {
					break
				}
				var f *field
				switch string(d.local) {
				case "loc":
					f = &loc
				case "lastmod":
					f = &lastmod
				}
				if f != nil && !f.seen && d.space() == space {
					f.seen = true
					into = f
				}
			}
		case tokText:
			if into != nil && d.depth == 3 {
				into.text(d.text)
			}
		case tokCDATA:
			if into != nil && d.depth == 3 {
				into.cdata(d.text)
			}
		case tokEnd:
			switch d.depth {
			case 3:
				into = nil
			case 2:
				if inEntry {
					inEntry = false
					if !loc.seen {
						rd.sum.Skipped++
						break
					}
					if err := rd.emit(typ, loc.value(), &lastmod); err != nil {
						return err
					}
				}
			}
		case tokEOF:
			return d.err
		}
	}
}
