// Package sourcelist reads lists of sources to add to the corpus: an OPML
// document as feed readers export their subscriptions (Feedly, Inoreader,
// NetNewsWire, …), or a plain list of URLs, one a line. It does no I/O beyond
// reading the io.Reader it is given.
//
// Parse tells the two apart by the first bytes: a document whose first
// non-blank character (after an optional byte order mark; UTF-16 is
// transcoded first) is "<" is read as XML and must have an <opml> root;
// anything else is a plain list. An OPML document that is not well-formed
// XML (real exports hold titles with a raw "<" or '"') is read again
// outline by outline (see lenient.go), and ParseList says so.
//
// In a plain list, surrounding whitespace is trimmed, and blank lines and
// lines starting with "#" are skipped. Every other line is one Entry.
//
// In an OPML document, every <outline> element that carries an xmlUrl or an
// htmlUrl attribute, at any depth (feed readers nest subscriptions in
// category outlines), is one Entry; outlines with neither are categories and
// are skipped, unless they say type="rss", which makes them an entry with no
// usable URL. Attribute names are matched without regard to case, as real
// exports spell them xmlUrl, xmlurl or XMLURL.
//
// Each URL must be what CheckURL allows a source: an absolute http or https
// URL with a host, no user name or password, and a port, if it names one,
// from 1 to 65535. CheckURL is the one rule for a source's URL, for every
// way a source is added (a list, the command line, the store), and
// Identity (sourceidentity.go) says when two URLs are one source. An entry that
// fails it is still returned, with Err saying why, so that the caller can
// report "line N: rejected: reason" and go on with the others. Parse does not
// remove duplicates (the caller reports them as already known); Dedup does.
package sourcelist

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html/charset"

	"corpus.blog/corpusbot/internal/urlkey"
)

// Limits on what Parse reads. A list of sources is typed or exported by a
// person; anything past these is a mistake (the wrong file) or an attack, and
// refusing it whole is clearer than reading part of it.
const (
	// MaxInputBytes is the most Parse reads from its reader.
	MaxInputBytes = 16 << 20
	// MaxEntries is the most entries Parse returns.
	MaxEntries = 100_000
)

// ErrTooLarge is wrapped by Parse's error when the input passes
// MaxInputBytes; ErrTooManyEntries when it holds more than MaxEntries
// entries.
var (
	ErrTooLarge       = errors.New("source list larger than 16 MiB")
	ErrTooManyEntries = errors.New("source list has more than 100000 entries")
)

// Entry is one source of a list.
type Entry struct {
	// Line is the line of the input the entry is on, counting from 1: for
	// an OPML outline, the line its start tag begins on.
	Line int
	// URL is the URL to add: the site (htmlUrl) when the outline names
	// one, else the feed (xmlUrl); for a plain list, the line. Empty only
	// when Err is set and there was nothing to show.
	URL string
	// Feed is the outline's xmlUrl when it is valid; empty for plain lists.
	Feed string
	// Title is the outline's title (or, lacking one, its text); empty for
	// plain lists.
	Title string
	// Err says why the entry cannot be added; nil for a good entry. When it
	// is set, URL holds what the input said, for the message.
	Err error
}

// ParseError is Parse's error for an OPML document that is not well formed.
type ParseError struct {
	Line int   // the line the problem was found on, from 1
	Err  error // what went wrong
	root bool  // found after the <opml> root began: worth reading leniently
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("sourcelist: OPML line %d: %v", e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Parse reads a list of sources from r, an OPML document or a plain list, as
// the package documentation describes. It returns every entry, good and
// rejected, in input order. Its error is for the list as a whole: a read
// error, an input past MaxInputBytes or MaxEntries (ErrTooLarge,
// ErrTooManyEntries), an XML document that is not OPML, or an OPML document
// so malformed that not one outline naming a URL could be read
// (*ParseError). An OPML document that is not well formed but has readable
// outlines is read leniently (ParseList says so).
func Parse(r io.Reader) ([]Entry, error) {
	l, err := ParseList(r)
	return l.Entries, err
}

// List is what ParseList read.
type List struct {
	// Entries are Parse's entries.
	Entries []Entry
	// Malformed is, for an OPML document that is not well-formed XML and
	// was read leniently (outline by outline; see readLeniently), the first
	// error the XML decoder found; nil otherwise. Outlines that could not
	// be read at all are among Entries, rejected, each on its line.
	Malformed *ParseError
}

// ParseList is Parse, saying also whether an OPML document had to be read
// leniently.
func ParseList(r io.Reader) (List, error) {
	return parse(r, limits{inputBytes: MaxInputBytes, entries: MaxEntries})
}

// limits are Parse's limits, smaller in tests.
type limits struct {
	inputBytes int64
	entries    int
}

func parse(r io.Reader, lim limits) (List, error) {
	data, err := io.ReadAll(io.LimitReader(r, lim.inputBytes+1))
	if err != nil {
		return List{}, fmt.Errorf("sourcelist: reading: %w", err)
	}
	if int64(len(data)) > lim.inputBytes {
		return List{}, fmt.Errorf("sourcelist: %w", ErrTooLarge)
	}
	data, utf16 := fromUTF16(data)
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if looksLikeXML(data) {
		entries, err := parseOPML(data, lim.entries, utf16)
		var bad *ParseError
		if errors.As(err, &bad) && bad.root {
			// Well-formedness failed inside an <opml> document: read
			// what can be read.
			entries, err = readLeniently(data, bad, lim.entries)
			if err != nil {
				return List{}, err
			}
			return List{Entries: entries, Malformed: bad}, nil
		}
		if err != nil {
			return List{}, err
		}
		return List{Entries: entries}, nil
	}
	entries, err := parseLines(data, lim.entries)
	if err != nil {
		return List{}, err
	}
	return List{Entries: entries}, nil
}

// looksLikeXML reports whether the first non-blank byte of data is "<". No
// URL starts with one, so a plain list is never mistaken for XML.
func looksLikeXML(data []byte) bool {
	trimmed := bytes.TrimLeftFunc(data, unicode.IsSpace)
	return len(trimmed) > 0 && trimmed[0] == '<'
}

func parseLines(data []byte, maxEntries int) ([]Entry, error) {
	var entries []Entry
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		text := strings.TrimSpace(string(line))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if len(entries) == maxEntries {
			return nil, fmt.Errorf("sourcelist: line %d: %w", lineNo, ErrTooManyEntries)
		}
		err := CheckURL(text)
		entries = append(entries, Entry{Line: lineNo, URL: shownURL(text, err), Err: err})
	}
	return entries, nil
}

func parseOPML(data []byte, maxEntries int, utf8Already bool) ([]Entry, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	// Exports from small tools leave a bare "&" in a URL or use HTML
	// entities in titles; a lenient decoder reads what they meant. A
	// document cut short or with an unclosed tag still fails.
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charset.NewReaderLabel
	if utf8Already {
		// Transcoded from UTF-16 (fromUTF16), which rewrote the
		// declaration: nothing is left to decode.
		d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	}

	var entries []Entry
	depth := 0
	for {
		// Before Token, the decoder stands just past the previous token,
		// which is where the next one begins: its first line.
		line, _ := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			if depth == 0 {
				return nil, &ParseError{Line: line, Err: errors.New("no <opml> element")}
			}
			return nil, &ParseError{Line: line, Err: errors.New("unexpected EOF: the document ends inside <opml>"), root: true}
		}
		if err != nil {
			pe := opmlError(d, err)
			pe.root = depth > 0
			return nil, pe
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 && !strings.EqualFold(t.Name.Local, "opml") {
				return nil, fmt.Errorf("sourcelist: not an OPML document: the root element is <%s>", t.Name.Local)
			}
			if !strings.EqualFold(t.Name.Local, "outline") {
				continue
			}
			e, ok := outlineEntry(t, line)
			if !ok {
				continue
			}
			if len(entries) == maxEntries {
				return nil, fmt.Errorf("sourcelist: line %d: %w", line, ErrTooManyEntries)
			}
			entries = append(entries, e)
		case xml.EndElement:
			depth--
			if depth == 0 {
				// What follows the root (whitespace, comments) does not
				// matter; a second root would be a mistake, but not one
				// that changes the entries read.
				return entries, nil
			}
		}
	}
}

// opmlError turns the decoder's error into a *ParseError with its line.
func opmlError(d *xml.Decoder, err error) *ParseError {
	var syn *xml.SyntaxError
	if errors.As(err, &syn) {
		return &ParseError{Line: syn.Line, Err: errors.New(syn.Msg)}
	}
	line, _ := d.InputPos()
	return &ParseError{Line: line, Err: err}
}

// outlineEntry reads the entry of an outline element; ok is false for an
// outline that names no source (a category).
func outlineEntry(t xml.StartElement, line int) (e Entry, ok bool) {
	var feedURL, siteURL, title, text, kind string
	var hasFeed, hasSite bool
	for _, a := range t.Attr {
		v := strings.TrimSpace(a.Value)
		switch strings.ToLower(a.Name.Local) {
		case "xmlurl":
			feedURL, hasFeed = v, true
		case "htmlurl":
			siteURL, hasSite = v, true
		case "title":
			title = v
		case "text":
			text = v
		case "type":
			kind = strings.ToLower(v)
		}
	}
	if title == "" {
		title = text
	}
	e = Entry{Line: line, Title: title}
	switch {
	case !hasFeed && !hasSite:
		if kind != "rss" && kind != "atom" {
			return Entry{}, false
		}
		e.Err = errors.New("outline has no xmlUrl or htmlUrl")
		return e, true
	case siteURL == "" && feedURL == "":
		e.Err = errors.New("empty URL")
		return e, true
	}
	feedErr, siteErr := errEmpty, errEmpty
	if feedURL != "" {
		feedErr = CheckURL(feedURL)
	}
	if siteURL != "" {
		siteErr = CheckURL(siteURL)
	}
	if feedErr == nil {
		e.Feed = feedURL
	}
	// The site is what is added; the feed stands in for a site the export
	// leaves out or spells wrong, as the crawler finds a site's feeds
	// itself and a feed's site from the feed.
	switch {
	case siteErr == nil:
		e.URL = siteURL
	case feedErr == nil:
		e.URL = feedURL
	case siteURL != "":
		e.URL, e.Err = shownURL(siteURL, siteErr), fmt.Errorf("htmlUrl: %w", siteErr)
	default:
		e.URL, e.Err = shownURL(feedURL, feedErr), fmt.Errorf("xmlUrl: %w", feedErr)
	}
	return e, true
}

var errEmpty = errors.New("empty URL")

// ErrUserinfo is wrapped by CheckURL's error for a URL with user
// information ("user:password@", "user@", even a bare "@"). A source is
// fetched without credentials (the fetcher never sends Authorization) and
// its URL is published (the public site, the API, the exports, the logs),
// so a password in it would leak and serve no purpose.
var ErrUserinfo = errors.New("URL carries a user name or password")

// CheckURL says why raw cannot be a source, or returns nil: it must be an
// absolute http or https URL with a host, without user information and
// with a port, if any, from 1 to 65535. It is the one rule for a source's
// URL, whichever way the source is added (a list read by Parse, the
// command line, the store's AddSource); its message never repeats a
// password.
func CheckURL(raw string) error {
	if raw == "" {
		return errEmpty
	}
	if strings.IndexFunc(raw, unicode.IsSpace) >= 0 {
		return errors.New("URL contains whitespace")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("unparsable URL: %v", err)
	}
	if u.Scheme == "" {
		if !strings.HasPrefix(raw, "/") && strings.Contains(strings.SplitN(raw, "/", 2)[0], ".") {
			return fmt.Errorf("not an absolute URL (did you mean https://%s ?)", Redact(raw))
		}
		return errors.New("not an absolute URL")
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	// url.Parse takes "http:x" as opaque and "http:///x" as hostless.
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return errors.New("URL has no host")
	}
	if u.User != nil {
		bare := *u
		bare.User = nil
		return fmt.Errorf("%w: sources are fetched without credentials and their URLs are published; add %s instead if the site is public", ErrUserinfo, bare.String())
	}
	// url.Parse has checked that a port is digits; not that it is one.
	if p := u.Port(); p != "" {
		if n, err := strconv.ParseUint(p, 10, 32); err != nil || n == 0 || n > 65535 {
			return fmt.Errorf("invalid port %q: a port is a number from 1 to 65535", p)
		}
	}
	// A source is stored under its URL key (SourceURL): a host the key
	// cannot write (characters no host name has) cannot be a source.
	if _, err := urlkey.Key(raw); err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner // without the URL the key's message repeats
		}
		return fmt.Errorf("invalid URL: %v", err)
	}
	return nil
}

// shownURL is what a rejected entry keeps of its URL for the message: as
// written, but for a password.
func shownURL(raw string, err error) string {
	if err != nil && strings.Contains(raw, "@") {
		return Redact(raw)
	}
	return raw
}

// Redact is raw fit to print: a password in it replaced by "xxxxx"
// (url.URL.Redacted). A URL that does not parse but holds an "@" is not
// shown at all, as what precedes the "@" may be a password.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") {
			return "(URL not shown: it may hold a password)"
		}
		return raw
	}
	return u.Redacted()
}

// Repeat is an entry whose URL an earlier entry already names.
type Repeat struct {
	Entry
	// FirstLine is the line of the earlier entry.
	FirstLine int
}

// Dedup returns the entries in order with each source kept once, and the
// later entries it left out. Two entries name one source when their URLs
// have one Identity, the rule AddSource keys the store by (so
// "https://Example.com" and "https://example.com:443/" are one source;
// http and https are not). Rejected entries are all kept: each is its own
// message.
func Dedup(entries []Entry) (unique []Entry, repeats []Repeat) {
	firstLine := make(map[string]int, len(entries))
	unique = make([]Entry, 0, len(entries))
	for _, e := range entries {
		if e.Err != nil {
			unique = append(unique, e)
			continue
		}
		k, err := Identity(e.URL)
		if err != nil {
			// A good entry passed CheckURL, which Identity starts with.
			k = e.URL
		}
		if first, seen := firstLine[k]; seen {
			repeats = append(repeats, Repeat{Entry: e, FirstLine: first})
			continue
		}
		firstLine[k] = e.Line
		unique = append(unique, e)
	}
	return unique, repeats
}
