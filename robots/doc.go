// Package robots parses robots.txt files and answers, for one crawler, whether
// a URL may be fetched, following RFC 9309 to the letter where it speaks and
// the conservative reading of the webmaster's intent where it is silent.
//
// The package does no I/O: bytes go in, decisions come out. A parsed file is
// immutable and safe for concurrent use, and a decision costs no allocation, so
// one parse can answer every request a crawler makes of a host until the file
// is fetched again.
//
// Choices worth knowing, all deliberate:
//   - The group naming the crawler's product token replaces the "*" group; it is
//     never merged with it. Several groups naming the same token are merged.
//   - A group line names the leading run of letters, "_" and "-" of its value
//     ("CorpusBot/1.0" names CorpusBot), compared case-insensitively and never
//     by prefix ("CorpusBotX" does not name CorpusBot).
//   - The longest pattern wins, its length counted in octets after
//     percent-encoding normalisation, wildcards included; a tie goes to Allow.
//   - Rules and URLs are normalised the same way before comparison: non-ASCII
//     octets are percent-encoded as UTF-8, escaped unreserved characters are
//     decoded, hex digits are upper-cased, and reserved escapes such as %2F
//     stay escaped, so /café/ and /caf%C3%A9/ match each other and /a%2Fb does
//     not match /a/b. A literal "*" or "$" is written %2A or %24.
//   - "$" anchors only at the very end of a pattern; elsewhere it is literal.
//   - /robots.txt itself is always allowed.
//   - Disallow lines with common misspellings ("dissallow", "disalow") and lines
//     with a missing colon are read as the webmaster meant them, as Google does.
//   - Patterns that start with neither "/" nor "*" are read as if they started
//     with "/" ("Disallow: private" means /private).
package robots
