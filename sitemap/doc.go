// Package sitemap reads sitemaps as crawlers meet them: XML urlsets and
// sitemap indexes (https://www.sitemaps.org/protocol.html), gzip-compressed
// or not, text sitemaps, and RSS and Atom feeds offered as sitemaps. It does
// no I/O beyond reading the io.Reader it is given, and streams: entries are
// handed to a callback as their elements close, so memory stays constant
// (well under 16 MB) whatever the size of the file.
//
// Choices worth knowing, all deliberate:
//   - gzip is recognised by its magic bytes, never by a file name or header,
//     and the 50 MB limit counts the inflated bytes, so a decompression bomb
//     stops at the limit. Past the limit, or past 50,000 entries, reading
//     stops: what was read is kept and the Summary says the file was cut.
//   - What is not a sitemap is refused before any entry is given, with a
//     reason: an HTML page (the error page many sites serve for
//     /sitemap.xml with status 200), an empty body, JSON, XML with another
//     root. HTML is never read as a text sitemap.
//   - A text sitemap is one URL a line: every line that is an absolute
//     http(s) URL is an entry, however many other lines there are; blank
//     lines and other lines are passed over and counted (Summary.BlankLines,
//     Summary.Skipped). It is refused as not a sitemap when its first 64 KiB
//     hold HTML document tags, or no URL line at all.
//   - An entry is the <loc> that is a direct child of a <url> (<sitemap> in
//     an index) that is a direct child of the root, all in the root's
//     namespace, so that sm:loc with a bound prefix counts and image:loc does
//     not. Commented-out entries are not entries. All the text and CDATA
//     pieces of an element are joined before trimming.
//   - Locs must be absolute http or https URLs that net/url accepts, with no
//     whitespace or control characters inside: others are dropped and
//     counted. Locs are given as written, not normalised.
//   - <lastmod> is read in every W3C precision and given in UTC; an
//     unreadable one is dropped, not its entry. Feed dates are read in the
//     many forms feeds use.
//   - The declared encoding is honoured with the WHATWG encodings (so
//     ISO-8859-1 is read as windows-1252, as browsers do); UTF-16 is known by
//     its bytes; a byte order mark and leading whitespace are skipped.
//   - XML that breaks partway keeps the entries before the break; the
//     Summary says where it broke. A bare "&" or an unknown entity is kept as
//     written rather than breaking the document.
package sitemap
