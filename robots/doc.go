// Package robots parses robots.txt files and answers, for one crawler, whether
// a URL may be fetched, following RFC 9309 to the letter where it speaks and
// the conservative reading of the webmaster's intent where it is silent.
//
// The package does no I/O: bytes go in, decisions come out. A parsed file is
// immutable and safe for concurrent use, and a decision costs no allocation, so
// one parse can answer every request a crawler makes of a host until the file
// is fetched again.
//
// The entry points: [Parse] reads a file, [File.For] picks the rules one
// product token obeys, [Rules.Decide] answers for a URL with the rule and
// line that decided it, and [Decide] turns the outcome of a fetch of
// robots.txt (a status, an error, a previous copy) into what to obey and for
// how long. [Scan] gives the lines as read, for linters.
//
// # What RFC 9309 asks, and where
//
//   - §2.1, §2.2: a file is groups of user-agent lines followed by rules;
//     lines that are not rules are skipped, never an error ([Parse] cannot
//     fail). A byte order mark is skipped; CR, LF and CRLF each end a line.
//   - §2.2.1: a group line names the leading run of letters, "_" and "-" of
//     its value ("CorpusBot/1.0" names CorpusBot), compared case-insensitively
//     and never by prefix ("CorpusBotX" does not name CorpusBot). All the
//     groups naming a token are merged; when none does, the "*" groups apply;
//     when there are none of those either, nothing is disallowed.
//   - §2.2.2: the most specific rule wins, its length counted in octets after
//     percent-encoding normalisation, wildcards included; a tie goes to Allow.
//     An empty Disallow disallows nothing. /robots.txt itself is always
//     allowed.
//   - §2.2.3: "*" matches any run of octets and "$" anchors the end of the
//     path, but only at the very end of a pattern; elsewhere "$" is literal.
//     A literal "*" or "$" is written %2A or %24.
//   - §2.2.4: Sitemap lines are read wherever they stand and belong to no
//     group ([File.Sitemaps]); other records do not disturb the groups.
//   - §2.3.1 ([Decide]): 2xx is the file to obey; 3xx is followed up to
//     [MaxRedirects] hops, after which there is taken to be no file; other
//     4xx means no file, so everything is allowed; 5xx, 429, 408 and
//     network failures make the site unreachable, so everything is
//     disallowed, or a copy younger than [MaxCopyAge] is obeyed, and after
//     [MaxCopyAge] of failures there is taken to be no file.
//   - §2.4: how long an answer is kept is the caller's choice, passed in
//     [TTLs]; the RFC asks for no more than 24 hours for a file.
//   - §2.5: at least 500 KiB must be read; [Parse] reads [MaxFileSize]
//     (1 MiB) and cuts the rest at a line end.
//
// # Choices worth knowing, all deliberate
//
//   - 401 and 403 are refusals ([StateRefused]: disallow everything but
//     /robots.txt), not an absence of rules as §2.3.1.3 has it: a site that
//     turns a crawler away at the door has said no.
//   - The group naming the crawler's product token replaces the "*" group; it
//     is never merged with it, even when it holds no rule at all.
//   - Rules and URLs are normalised the same way before comparison: non-ASCII
//     octets are percent-encoded as UTF-8, escaped unreserved characters are
//     decoded, hex digits are upper-cased, and reserved escapes such as %2F
//     stay escaped, so /café/ and /caf%C3%A9/ match each other and /a%2Fb does
//     not match /a/b ([AppendNormalizedURI]).
//   - Allowing /dir/index.html allows /dir/ too, as Google reads it.
//   - Disallow lines with common misspellings ("dissallow", "disalow") and lines
//     with a missing colon are read as the webmaster meant them, as Google does.
//   - Patterns that start with neither "/" nor "*" are read as if they started
//     with "/" ("Disallow: private" means /private).
//   - Crawl-delay, which the RFC does not define, is read per group: the
//     largest value among the groups that apply, in seconds (fractions
//     allowed), capped at [MaxCrawlDelay].
//   - A line is cut at [MaxLineLength] octets, as Google's parser cuts it.
//
// # Not supported
//
// Fetching, caching and redirect following are the caller's: the package
// never does I/O. Host, Clean-param, Request-rate, Visit-time and Noindex
// lines are reported by [Scan] as unknown and otherwise ignored, as Google
// ignores them. Agents are never matched by prefix or substring of the
// User-Agent header; derive the token with [ProductToken].
//
// # Conformance
//
// The IsUserAgentAllowed assertions of Google's robotstxt test suite
// (robots_test.cc, 141 of them) are ported as tests and pass, except three
// deliberate divergences, each explained where it is asserted: two where the
// URL holds a raw non-ASCII character (percent-encoded here on both sides)
// and one with escaped unreserved characters (decoded on both sides, per
// §2.2.2). The suite's other tests (line numbers, BOM, valid agents, path
// extraction, pattern escaping) and RFC 9309's figures and examples are
// ported too. On the same suite github.com/jimsmart/grobotstxt gives 2 and
// github.com/temoto/robotstxt 15 answers different from Google's. The
// benchmarks against both are in README.md beside this file.
package robots
