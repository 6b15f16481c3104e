package sitemap

// readURLSet gives the entries of a <urlset> or <sitemapindex> whose root
// has just been read. An entry is an element named entry (url or sitemap)
// directly inside the root, and its <loc> and <lastmod> are its direct
// children; all of them must be in the root's namespace, whichever that is
// (the sitemaps.org one, an old Google one, none), so that image:loc,
// video:*, news:* and xhtml:link are passed over without losing their url.
//
// Two mistakes of hand-made and cut-off files lose no entry:
//   - A <loc> that follows a closed one in the same entry starts a new
//     entry, as if the writer had forgotten </url><url>: the entry before it
//     is given with the lastmod read so far, and a later <lastmod> belongs to
//     the new one. Of several <lastmod>s between two <loc>s the first counts.
//   - A document that ends or breaks inside an entry whose <loc> closed gives
//     that entry (with its lastmod, if that closed too): its URL is whole. An
//     entry cut inside its <loc> is dropped, since its URL may be cut.
func (rd *reader) readURLSet(d *decoder, space, entry string, typ Type) error {
	var (
		inEntry              bool
		loc, lastmod         field
		locDone, lastmodDone bool   // the element closed
		into                 *field // the field whose text is being gathered
	)
	reset := func() {
		loc.reset()
		lastmod.reset()
		locDone, lastmodDone = false, false
	}
	// give gives the entry read so far; a lastmod still open is not used.
	give := func() error {
		if !lastmodDone {
			lastmod.reset()
		}
		return rd.emit(typ, loc.value(), &lastmod)
	}
	for {
		switch d.next() {
		case tokStart:
			switch d.depth {
			case 2:
				inEntry = string(d.local) == entry && d.space() == space
				reset()
			case 3:
				if !inEntry || d.space() != space {
					break
				}
				var f *field
				switch string(d.local) {
				case "loc":
					if locDone {
						// A second <loc>: the entry before it ends here.
						if err := give(); err != nil {
							return err
						}
						reset()
					}
					f = &loc
				case "lastmod":
					f = &lastmod
				}
				if f != nil && !f.seen {
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
				switch into {
				case &loc:
					locDone = true
				case &lastmod:
					lastmodDone = true
				}
				into = nil
			case 2:
				if inEntry {
					inEntry = false
					if !loc.seen {
						rd.sum.Skipped++
						break
					}
					if err := give(); err != nil {
						return err
					}
				}
			}
		case tokEOF:
			if inEntry && locDone {
				// Cut after a whole <loc>: the entry is kept.
				if err := give(); err != nil {
					return err
				}
			}
			return d.err
		}
	}
}
