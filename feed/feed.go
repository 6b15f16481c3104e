package feed

import (
	"errors"
	"time"
)

// Feed is what a feed document says about itself and its entries, as the
// document says it: nothing is guessed from elsewhere.
type Feed struct {
	Format  string // "rss", "atom" or "json"
	Version string // as declared: "2.0", "0.91", "1.0" (RDF), "0.90"; Atom "1.0" or "0.3"; JSON "1" or "1.1"
	Title   string
	Link    string // the site the feed describes: RSS channel <link>, Atom alternate link, JSON home_page_url
	Self    string // the feed's own URL as it declares it (rel="self", JSON feed_url), "" when absent
	Next    string // the next page of the feed's archive (RFC 5005 rel="next", JSON next_url), resolved
	Hub     string // the WebSub hub, when one is declared

	// Language is the language the feed declares for itself, as written
	// (RSS channel <language> or dc:language, Atom xml:lang on <feed>, JSON
	// Feed language): "" when it declares none.
	Language string

	// IsComments is true for a feed of comments rather than posts, known by its
	// title, its URL or its declared self URL (see IsCommentFeedURL).
	IsComments bool

	// Truncated is true when not all of the document was read: it ended or
	// broke off in a syntax error before its root element closed, it was
	// longer than Options.MaxBytes, or it held more than Options.MaxEntries
	// entries. Entries then holds the entries read whole before that point.
	Truncated bool

	Entries []Entry
}

// Entry is one post of a feed.
type Entry struct {
	ID    string // RSS <guid>, RDF rdf:about, Atom <id>, JSON id; as written
	Link  string // the post's own page, resolved to an absolute URL when a base is known
	Title string // plain text, whitespace collapsed

	// Published and Updated are the dates the feed states, in UTC, each zero
	// when the feed does not state it. One is never copied into the other.
	Published time.Time
	Updated   time.Time

	// FullContent is true when the entry's body element (RSS content:encoded,
	// Atom <content>, JSON content_html or content_text) holds at least
	// FullContentChars characters of text once markup is stripped. A summary
	// or description never counts, however long.
	FullContent bool

	// Content is the body element as HTML markup ("" when the entry has none):
	// HTML bodies as written, text bodies escaped, XHTML bodies re-serialised.
	Content string

	// Author is the entry's author as the feed names it: dc:creator, else
	// the RSS <author> (its name when written "mail (Name)"), Atom
	// author/name, JSON Feed authors[0].name or author.name; "" when none.
	Author string
	// Categories are the entry's categories, in order, each once: RSS
	// <category>, Atom category label (else term), JSON Feed tags.
	Categories []string
	// Language is the entry's language as declared: the xml:lang in effect
	// on an Atom entry, JSON Feed item language, else the feed's Language.
	Language string
}

// FullContentChars is how many characters of text a body needs, once tags are
// stripped, entities decoded and runs of white space counted as one, before it
// is taken to be the whole post rather than an excerpt.
const FullContentChars = 500

// MaxURLLength bounds every URL the package returns; a longer one is dropped.
// Without it one long xml:base could be copied into every entry's link and
// multiply the memory a feed costs.
const MaxURLLength = 4096

// Options bound what one parse may cost. The zero value means the defaults.
type Options struct {
	// MaxBytes is how much of the document is read (default DefaultMaxBytes);
	// the rest is ignored and the feed is Truncated.
	MaxBytes int
	// MaxEntries is how many entries are kept (default DefaultMaxEntries);
	// past it reading stops and the feed is Truncated.
	MaxEntries int
}

// The defaults of Options. 5 MB is corpusbot's default cap on a response
// body, well above the size of real feeds; 10,000 entries bound what one
// parse returns.
const (
	DefaultMaxBytes   = 5 * 1000 * 1000
	DefaultMaxEntries = 10000
)

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	return o
}

// ErrNotFeed matches every *NotFeedError with errors.Is.
var ErrNotFeed = errors.New("not a feed")

// NotFeedError says why a document is not a feed: an HTML page, a sitemap,
// JSON without a jsonfeed.org version, an empty body, and so on.
type NotFeedError struct {
	Reason string
}

func (e *NotFeedError) Error() string        { return "not a feed: " + e.Reason }
func (e *NotFeedError) Is(target error) bool { return target == ErrNotFeed }

func notFeed(reason string) error { return &NotFeedError{Reason: reason} }

func (e *Entry) isZero() bool {
	return e.ID == "" && e.Link == "" && e.Title == "" && e.Published.IsZero() && e.Updated.IsZero() &&
		!e.FullContent && e.Content == "" && e.Author == "" && len(e.Categories) == 0 && e.Language == ""
}
