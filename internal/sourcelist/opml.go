package sourcelist

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"
)

// Outline is one source as an OPML document lists it for a feed reader.
type Outline struct {
	Title string // the text shown; the homepage when empty
	Site  string // the homepage (htmlUrl): what `sources add --file` reads back
	Feed  string // its feed (xmlUrl), "" when none is known
}

type opmlDoc struct {
	XMLName xml.Name    `xml:"opml"`
	Version string      `xml:"version,attr"`
	Title   string      `xml:"head>title"`
	Created string      `xml:"head>dateCreated"`
	Body    []opmlEntry `xml:"body>outline"`
}

type opmlEntry struct {
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:"text,attr"`
	Title   string `xml:"title,attr"`
	XMLURL  string `xml:"xmlUrl,attr,omitempty"`
	HTMLURL string `xml:"htmlUrl,attr"`
}

// WriteOPML writes outlines as an OPML 2.0 document (opml.org/spec2):
// each outline of a known feed is an "rss" outline with xmlUrl, as feed
// readers import subscriptions; each carries htmlUrl, the homepage, which
// Parse reads first, so that the document added back gives the same
// sources (a feed's own channel link may name another homepage). An outline
// with no feed has no type: a reader lists it as a link, and nothing
// claims a feed that is not known.
func WriteOPML(w io.Writer, title string, created time.Time, outlines []Outline) error {
	doc := opmlDoc{Version: "2.0", Title: title, Created: created.UTC().Format(time.RFC1123Z), Body: []opmlEntry{}}
	for _, o := range outlines {
		text := o.Title
		if text == "" {
			text = o.Site
		}
		e := opmlEntry{Text: text, Title: text, HTMLURL: o.Site, XMLURL: o.Feed}
		if o.Feed != "" {
			e.Type = "rss"
		}
		doc.Body = append(doc.Body, e)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("opml: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
