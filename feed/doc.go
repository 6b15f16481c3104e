// Package feed reads RSS 0.9x, 1.0 (RDF) and 2.0, Atom 1.0 (and 0.3) and
// JSON Feed 1.0 and 1.1 documents into one shape, recognises comment feeds,
// and finds the feeds an HTML page declares.
//
// The package does no I/O: [Parse] takes the bytes of a document and the URL
// it was fetched from, [Discover] the bytes of a page and its URL. Both are
// safe for concurrent use and bounded in what they read and return
// ([Options], [MaxDiscoverBytes], [MaxURLLength]). Every error is a
// [*NotFeedError], matching [ErrNotFeed].
//
// # Standards
//
// RSS 2.0 (the RSS Advisory Board's specification) with the RSS 0.91/0.92
// and RDF-based RSS 0.90 and 1.0 forms; Atom 1.0 (RFC 4287) and the older
// Atom 0.3; JSON Feed 1.0 and 1.1 (jsonfeed.org); the content, Dublin Core
// (dc, dcterms) and atom extensions of RSS; paged archives (RFC 5005
// rel="next") and WebSub hubs as links; XML Base for relative links; and
// feed autodiscovery by <link rel="alternate"> in HTML.
//
// # Choices worth knowing, all deliberate
//
//   - Dates are reported as the feed states them, never copied from one field
//     to another. Published: RSS pubDate, else dc:date, else dcterms:issued or
//     created, else atom:published; Atom published (0.3: issued, created);
//     JSON date_published. Updated: atom:updated, else dcterms:modified; Atom
//     updated (0.3: modified); JSON date_modified. Dates are read in the
//     forms feeds really use: RFC 3339 and the ISO 8601 variants publishing
//     tools emit, RFC 822 and 1123 with or without a day name, two-digit
//     years, named zones at their real offsets; a date without a zone is
//     read as UTC. A date none of these reads is no date; all dates are in
//     UTC.
//   - Links are resolved against xml:base, nested element by element, then
//     the feed URL; with neither, a relative link stays relative. An absolute
//     http(s) link is kept exactly as written. A URL longer than MaxURLLength
//     is dropped, and so is an xml:base that long, so that one huge base cannot
//     be copied into every entry.
//   - An entry's link follows one rule, which package
//     corpus.blog/corpusbot/sitemap applies to feeds read as sitemaps too: an
//     RSS item's <link>, else its
//     <guid> when that is a permalink (isPermaLink absent or not "false")
//     that looks like one (an http(s) URL or a path from the root; "1234" and
//     tag: URIs are not), else an atom:link rel="alternate", else an RSS 1.0
//     rdf:about URL; an Atom entry's first rel="alternate" (or rel-less) link
//     of type text/html, XHTML or none, else its first alternate of another
//     type, else its <id> if that is a permalink. A mailto:, javascript: or
//     other non-http(s) URL is passed over. A JSON item's link is url, else an
//     http(s) id; external_url points away from the post and is not used.
//   - The RSS channel's <link> is the feed's link. atom:link elements in a
//     channel (and <link href> written without the atom prefix) give Next,
//     Hub and Self and never replace it; only a channel with no <link> at all
//     borrows an atom:link rel="alternate".
//   - FullContent comes only from body elements — RSS content:encoded, Atom
//     <content> (not <summary>, and not out-of-line src= or base64 content),
//     JSON content_html or content_text — holding at least FullContentChars
//     characters of text once tags are stripped with golang.org/x/net/html,
//     entities decoded, <script> and <style> left out and white space runs
//     counted once. A long description is not full content, nor a body of
//     <img> markup. Atom text content is measured the same way, since untyped
//     content full of escaped markup is common.
//   - Titles are plain text with white space collapsed. Atom type="html"
//     titles have their tags stripped; RSS titles have entities decoded once
//     more ("Tom &amp;amp; Jerry" is "Tom & Jerry", as feed readers show it)
//     but keep anything that looks like a tag.
//   - Encodings: a BOM is skipped (UTF-16 by BOM is transcoded), leading
//     white space is skipped, and the XML declaration's encoding is honoured
//     through golang.org/x/net/html/charset with the WHATWG labels, as
//     browsers read them: windows-1252 is windows-1252 and so is "iso-8859-1"
//     (its 0x80–0x9F are the quotes and dashes publishers meant). An unknown
//     label is read as UTF-8; invalid UTF-8 in a UTF-8 document becomes
//     U+FFFD rather than ending the parse. Undeclared HTML entities (&nbsp;)
//     are read as HTML's, and a prefix used without a declaration
//     (content:encoded with no xmlns:content) as its usual namespace.
//   - Every text and CDATA piece of an element is joined before trimming.
//   - Truncation: a document that ends or breaks off in a syntax error after
//     its root element began is a feed; it keeps the entries read whole before
//     the break and is marked Truncated. The same holds past MaxBytes and
//     MaxEntries, and for JSON Feed once its version has been read. Before the
//     root element (or the version) it is not a feed.
//   - Not a feed (a *NotFeedError, matching ErrNotFeed): an empty document, an
//     HTML or XHTML page, a sitemap, any other XML root, JSON that is not an
//     object or has no https://jsonfeed.org/version/ version, and text that
//     is neither XML nor JSON.
//   - Who wrote it, about what, in which language, as the feed states it
//     (a corpus is built per author, licence and language): Entry.Author is
//     dc:creator, else the name in RSS <author> ("mail (Name)", or a name
//     alone; an address alone is no name), Atom author/name (the first, else
//     the feed's author, which RFC 4287 makes the entry's), JSON Feed
//     authors[].name or 1.0 author.name (else the feed's). Entry.Categories
//     are RSS <category>, Atom category label (else term), JSON Feed tags, in
//     order, each once, at most 64. Feed.Language is RSS <language> (or
//     dc:language), Atom xml:lang on <feed>, JSON Feed language, as written;
//     Entry.Language is the xml:lang in effect on an Atom entry or a JSON
//     item's language, else the feed's. Nothing is detected here.
//   - Comment feeds are known by title ("Comments on: …", "Comments for …",
//     "… Comments Feed" and its common translations) and by URL
//     (IsCommentFeedURL); Feed.IsComments checks the title, the feed URL and
//     the feed's declared self URL.
//
// # Not supported
//
// Fetching, conditional requests and following rel="next" are the caller's.
// Only what a reader of posts and a corpus of them need is kept: no
// enclosures, images, iTunes or Media RSS fields, author e-mail addresses or
// URIs, and no summary beside the body. Content is not sanitised: Entry.Content is the publisher's markup,
// to be treated as untrusted. OPML subscription lists and h-feed
// microformats are not feeds here.
//
// # Conformance
//
// The test documents of Python's feedparser (kurtmckee/feedparser, its
// tests' Expect assertions on titles, links, dates and entry counts, plus
// one-item feeds around its date-parser tests), converted to this package's
// output, pass: 630 of 630 required cases; of 62 optional ones (invalid or
// obsolete input where feedparser's answer is its own leniency) 28 agree.
//
// github.com/mmcdole/gofeed, run over this package's fixtures
// (TestGofeedDisagreements), differs on about half of them (35 of 73 at the
// last count): it copies an Atom entry's updated date into published and an
// RSS item's dc:date into updated; it takes no feed URL, so relative links
// stay relative; it ignores permalink guids, http(s) Atom ids and the IANA
// form of rel="alternate" as links, and prefers any alternate to a text/html
// one; a <link href> without the atom prefix replaces the channel link; it
// gives up on a whole feed at one stray byte, an unknown charset label, a
// UTF-16 document, a truncation, a BOM before JSON or one mistyped JSON
// member; and it reads JSON without a jsonfeed.org version as a feed. The
// benchmarks against it are in README.md beside this file.
package feed
