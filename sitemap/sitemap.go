package sitemap

import (
	"io"
	"net/url"
	"time"
)

// The protocol's limits on one file (https://www.sitemaps.org/protocol.html):
// 50,000 entries and 50 MB (52,428,800 bytes) uncompressed.
const (
	DefaultMaxEntries = 50_000
	DefaultMaxBytes   = 50 << 20
)

// Type says what an entry points to.
type Type uint8

const (
	URL     Type = iota + 1 // a page (urlset <url>, a text line, a feed item)
	Sitemap                 // another sitemap (sitemapindex <sitemap>)
)

func (t Type) String() string {
	switch t {
	case URL:
		return "url"
	case Sitemap:
		return "sitemap"
	}
	return "unknown"
}

// Entry is one location a sitemap lists.
type Entry struct {
	Type    Type
	Loc     string    // an absolute http or https URL, as written once entities are decoded
	Lastmod time.Time // in UTC; zero when absent or unreadable
}

// Format is the kind of document that was read.
type Format uint8

const (
	FormatUnknown Format = iota
	FormatURLSet         // XML <urlset>
	FormatIndex          // XML <sitemapindex>
	FormatText           // one URL a line
	FormatRSS            // RSS 0.9x, 1.0 (RDF) or 2.0 used as a sitemap
	FormatAtom           // Atom used as a sitemap
)

func (f Format) String() string {
	switch f {
	case FormatURLSet:
		return "urlset"
	case FormatIndex:
		return "sitemapindex"
	case FormatText:
		return "text"
	case FormatRSS:
		return "rss"
	case FormatAtom:
		return "atom"
	}
	return "unknown"
}

// Options are the context a sitemap is read in. The zero value reads with the
// protocol's limits and no base URL.
type Options struct {
	// Base is the URL the document was fetched from. Only the links of a feed
	// read as a sitemap are resolved against it (after any xml:base); sitemap
	// <loc>s and text lines must be absolute, as the protocol requires.
	Base *url.URL
	// MaxEntries stops reading once that many entries were given to fn and
	// another one follows. 0 means DefaultMaxEntries.
	MaxEntries int
	// MaxBytes stops reading after that many bytes of the document,
	// counted after gzip is undone, so that a small file that inflates without
	// end costs no more than a large plain one. 0 means DefaultMaxBytes.
	MaxBytes int64
}

// Summary describes what was read.
type Summary struct {
	Format     Format
	Gzip       bool   // the bytes were gzip-compressed
	Encoding   string // the character encoding decoded from, when not UTF-8
	URLs       int    // URL entries given to fn
	Sitemaps   int    // Sitemap entries given to fn
	Skipped    int    // entries (or text lines) with no usable loc
	BlankLines int    // text sitemap: lines empty or white space only after the first non-blank one, passed over
	BadLastmod int    // entries given with a zero Lastmod because theirs was unreadable
	Bytes      int64  // document bytes taken from r, after gzip, read-ahead included

	// Truncated is set when a limit stopped reading: the rest of the file
	// was not looked at.
	Truncated bool
	// Broken is set when the XML is malformed from some point on; the
	// entries before that point were given, the rest could not be read.
	Broken bool
	// Reason says why Truncated or Broken is set.
	Reason string
}

// Whole reports whether the whole document was read, so that an entry missing
// from it is really gone from the site's sitemap. A text sitemap more of
// whose lines are not URLs than are is read for its URLs but not trusted
// as whole: it may be an error page that quotes a URL or two, and its
// silence about the rest says nothing.
func (s Summary) Whole() bool {
	return !s.Truncated && !s.Broken && (s.Format != FormatText || s.Skipped <= s.URLs)
}

// Entries is the number of entries given to fn.
func (s Summary) Entries() int { return s.URLs + s.Sitemaps }

// Read reads a sitemap from r and calls fn for each entry, in document
// order, as soon as its element closes. It holds neither the document nor
// the entries, so memory stays constant whatever the size of r.
//
// The document may be gzip-compressed (recognised by its magic bytes, never
// by a name), and may be an XML urlset or sitemapindex, a text sitemap, or an
// RSS or Atom feed. When it is none of these, Read returns a
// *NotSitemapError before calling fn at all, so a caller can hold back its
// output until the first entry.
//
// A document cut short by a limit, or whose XML breaks partway, is not an
// error: the entries before the cut are given and the Summary says what
// happened. The error is fn's own error as it returned it, which stops the
// reading, or a failure to read r, wrapped.
func Read(r io.Reader, opts Options, fn func(Entry) error) (Summary, error) {
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	rd := &reader{opts: opts, fn: fn}
	err := rd.read(r)
	rd.sum.Bytes = rd.bytesRead()
	rd.release()
	return rd.sum, err
}
