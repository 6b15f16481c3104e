// Package urlkey gives every URL of a post one spelling, its key: the string
// the post is stored under, so that the same post reached through a feed, a
// sitemap and a link is one record and one page fetch. It does no I/O.
//
// Key keeps what can select a different resource and drops what cannot:
//   - The scheme and the host are lowercased; an internationalised host is
//     written in its ASCII (punycode) form and a final "." is dropped, as
//     fetch does for its site and robots.txt keys. The default port (80 for
//     http, 443 for https) is dropped, an empty path becomes "/".
//   - User information ("user:pass@") is dropped: it is never part of what
//     the server is asked for (RFC 9110 §4.2.4 forbids sending it), and a key
//     must not carry a password into the corpus.
//   - Percent-encoding is normalised as robots.txt matching does it
//     (robots.AppendNormalizedURI), in the path and in the query: escapes of
//     unreserved characters are decoded, other escapes keep their meaning
//     with upper-case hex, so %2F stays apart from "/" and %26 from "&";
//     non-ASCII text is escaped as UTF-8. This step changes no robots.txt
//     decision (removing dot segments and tracking parameters can).
//   - Dot segments are removed (RFC 3986 §5.2.4). Empty segments ("//") are
//     kept: servers may answer them differently.
//   - The fragment is dropped: it is never sent to the server.
//   - Known tracking parameters are dropped from the query (see
//     IsTrackingParameter for the list and why each is on it); the others are
//     kept in the order written, with "+" and "%20" as written, because order
//     and spelling can matter to the server. Empty parameters ("&&") and an
//     empty query ("?") are dropped.
//
// Key never folds http into https, "www." into the bare host, or "/a/" into
// "/a": those are often the same post, but only the site can say so, by a
// redirect or a canonical link. Variants and Respell are for the caller that
// has such evidence; Canonical reads a canonical link.
package urlkey
