// Package sitemap reads sitemaps as crawlers meet them: XML urlsets and
// sitemap indexes (https://www.sitemaps.org/protocol.html), gzip-compressed
// or not, text sitemaps, and RSS and Atom feeds offered as sitemaps. It does
// no I/O beyond reading the io.Reader it is given, and streams: entries are
// handed to a callback as their elements close, so memory stays constant
// (well under 16 MB) whatever the size of the file.
//
// There is one entry point, [Read]: a reader and [Options] in, each [Entry]
// to a callback, a [Summary] of what was read out. It is safe to call from
// many goroutines at once.
//
// # The protocol's limits
//
// sitemaps.org allows one file at most 50,000 URLs (or 50,000 sitemaps in an
// index) and 50 MB (52,428,800 bytes) uncompressed: [DefaultMaxEntries] and
// [DefaultMaxBytes], which [Options] can lower or raise. Past either, reading
// stops: the entries read are kept and the [Summary] says the file was cut
// ([Summary.Truncated]). The byte limit counts inflated bytes, so a
// decompression bomb stops at the limit too.
//
// # Choices worth knowing, all deliberate
//
//   - gzip is recognised by its magic bytes, never by a file name or header.
//   - What is not a sitemap is refused before any entry is given, with a
//     reason ([NotSitemapError]): an HTML page (the error page many sites
//     serve for /sitemap.xml with status 200), an empty body, JSON, XML with
//     another root. HTML is never read as a text sitemap.
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
//   - A feed read as a sitemap gives one URL entry per item, its link chosen
//     by the same rule as package corpus.blog/corpusbot/feed's Entry.Link, so
//     one post has one URL whichever of the two reads it; relative links
//     resolve against xml:base, then Options.Base.
//   - The declared encoding is honoured with the WHATWG encodings (so
//     ISO-8859-1 is read as windows-1252, as browsers do); UTF-16 is known by
//     its bytes; a byte order mark and leading whitespace are skipped.
//   - XML that breaks partway keeps the entries before the break; the
//     Summary says where it broke ([Summary.Broken]). A bare "&" or an
//     unknown entity is kept as written rather than breaking the document.
//
// # Not supported
//
// Fetching: the children of a sitemap index are given as [Sitemap] entries
// for the caller to fetch, and robots.txt Sitemap lines are the robots
// package's. <changefreq> and <priority>, which the large search engines
// ignore, are not reported, nor are the image, video, news and hreflang
// extensions. The protocol's rule that a sitemap lists only URLs under its
// own location is not enforced: that takes the URL the file was fetched
// from and the robots.txt that named it, which the caller has. Locs are not
// normalised or deduplicated.
//
// # Conformance
//
// The test documents of three other sitemap parsers — crawler-commons
// (Java), oxffaa/gopher-parse-sitemap and yterajima/go-sitemap (Go) — with
// their assertions converted, pass: 53 of 53 required cases; of the 10
// optional ones (invalid input where a peer's answer is its own leniency)
// 5 agree. On every document encoding/xml reads whole, Read gives the same
// entries as a plain encoding/xml reader, over the fixtures and under the
// fuzzer (FuzzAgainstEncodingXML). The benchmarks are in README.md beside
// this file.
package sitemap
