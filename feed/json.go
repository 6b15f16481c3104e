package feed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"

	"corpus.blog/corpusbot/internal/entryurl"
)

// jsonItem is the part of a JSON Feed item (https://jsonfeed.org/version/1.1)
// this package reads.
type jsonItem struct {
	ID            flexString   `json:"id"`
	URL           string       `json:"url"`
	Title         string       `json:"title"`
	ContentHTML   *string      `json:"content_html"`
	ContentText   *string      `json:"content_text"`
	DatePublished string       `json:"date_published"`
	DateModified  string       `json:"date_modified"`
	Authors       []jsonAuthor `json:"authors"` // 1.1
	Author        *jsonAuthor  `json:"author"`  // 1.0
	Tags          []string     `json:"tags"`
	Language      string       `json:"language"` // 1.1
}

type jsonAuthor struct {
	Name string `json:"name"`
}

type jsonHub struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// flexString takes the string JSON Feed asks for an id, or the number many
// feeds give instead.
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = flexString(v)
		return nil
	}
	if _, err := strconv.ParseFloat(string(b), 64); err == nil {
		*s = flexString(b)
	}
	return nil // null, or something no one could use as an id
}

// parseJSON reads a JSON Feed one item at a time, so that a document cut
// short keeps the items before the break, as XML feeds do, and the entry
// limit bounds what is decoded. A member of the wrong type is ignored, not
// the feed.
func parseJSON(body []byte, base *url.URL, o Options) (*Feed, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, notFeed("not JSON")
	}
	f := &Feed{Format: "json"}
	version, feedAuthor := "", ""
	var broke error
	for d.More() && broke == nil {
		tok, err := d.Token()
		if err != nil {
			broke = err
			break
		}
		key, _ := tok.(string)
		switch key {
		case "version":
			broke = decodeLenient(d, &version)
		case "title":
			broke = decodeLenient(d, &f.Title)
		case "home_page_url":
			broke = decodeLenient(d, &f.Link)
		case "feed_url":
			broke = decodeLenient(d, &f.Self)
		case "next_url":
			broke = decodeLenient(d, &f.Next)
		case "hubs":
			var hubs []jsonHub
			broke = decodeLenient(d, &hubs)
			for _, h := range hubs {
				if strings.EqualFold(h.Type, "websub") || f.Hub == "" {
					f.Hub = h.URL
				}
			}
		case "language":
			broke = decodeLenient(d, &f.Language)
		case "authors", "author":
			// The feed's author is its items' when they name none.
			if key == "authors" {
				var as []jsonAuthor
				broke = decodeLenient(d, &as)
				for _, a := range as {
					setOnce(&feedAuthor, collapseSpace(a.Name))
				}
			} else {
				var a jsonAuthor
				broke = decodeLenient(d, &a)
				setOnce(&feedAuthor, collapseSpace(a.Name))
			}
		case "items":
			broke = jsonItems(d, f, base, o.MaxEntries)
		default:
			broke = decodeLenient(d, &struct{}{})
		}
	}
	v, ok := jsonFeedVersion(version)
	if !ok {
		if broke != nil && !errors.Is(broke, errStop) && version == "" {
			return nil, notFeed("invalid JSON: " + strings.TrimPrefix(broke.Error(), "json: "))
		}
		if version != "" {
			return nil, notFeed(fmt.Sprintf("JSON whose version %q is not a jsonfeed.org version", prefix([]byte(version), 64)))
		}
		return nil, notFeed("JSON without a jsonfeed.org version")
	}
	f.Version = v
	for i := range f.Entries {
		setOnce(&f.Entries[i].Author, feedAuthor)
	}
	f.Title = collapseSpace(f.Title)
	f.Link = resolve(f.Link, base)
	f.Self = resolve(f.Self, base)
	f.Next = resolve(f.Next, base)
	f.Hub = resolve(f.Hub, base)
	if broke != nil {
		f.Truncated = true
	}
	return f, nil
}

// jsonFeedVersion reads "https://jsonfeed.org/version/1.1" as "1.1".
func jsonFeedVersion(v string) (string, bool) {
	v = strings.TrimSpace(v)
	for _, p := range []string{"https://jsonfeed.org/version/", "http://jsonfeed.org/version/"} {
		if hasPrefixFoldString(v, p) && len(v) > len(p) {
			return v[len(p):], true
		}
	}
	return "", false
}

// decodeLenient decodes the next value into v; a value of the wrong type has
// been read past when Decode complains about it, so it is skipped.
func decodeLenient(d *json.Decoder, v any) error {
	err := d.Decode(v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

func jsonItems(d *json.Decoder, f *Feed, base *url.URL, max int) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		return skipRest(d, tok)
	}
	for d.More() {
		if len(f.Entries) >= max {
			return errStop
		}
		var it jsonItem
		if err := decodeLenient(d, &it); err != nil {
			return err
		}
		if e := it.entry(base); !e.isZero() {
			f.Entries = append(f.Entries, e) // an item that was not an object is nothing
		}
	}
	_, err = d.Token() // the closing ]
	return err
}

func (it *jsonItem) entry(base *url.URL) Entry {
	e := Entry{
		ID:        string(it.ID),
		Link:      resolve(it.URL, base),
		Title:     collapseSpace(it.Title),
		Published: parseDate(it.DatePublished),
		Updated:   parseDate(it.DateModified),
		Language:  strings.TrimSpace(it.Language),
	}
	for _, a := range it.Authors {
		setOnce(&e.Author, collapseSpace(a.Name))
	}
	if it.Author != nil {
		setOnce(&e.Author, collapseSpace(it.Author.Name))
	}
	for _, t := range it.Tags {
		e.Categories = addCategory(e.Categories, t)
	}
	if e.Link == "" && entryurl.IsPermalink(e.ID) {
		e.Link = resolve(e.ID, base)
	}
	switch {
	case it.ContentHTML != nil:
		e.Content = *it.ContentHTML
		e.FullContent = hasFullText(e.Content)
		if !e.FullContent && it.ContentText != nil {
			e.FullContent = hasFullText(*it.ContentText)
		}
	case it.ContentText != nil:
		e.Content = html.EscapeString(*it.ContentText)
		e.FullContent = hasFullText(*it.ContentText)
	}
	return e
}

// skipRest reads past the rest of a value whose first token was tok.
func skipRest(d *json.Decoder, tok json.Token) error {
	depth := 0
	for {
		if delim, ok := tok.(json.Delim); ok {
			switch delim {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth <= 0 {
			return nil
		}
		var err error
		if tok, err = d.Token(); err != nil {
			return err
		}
	}
}
