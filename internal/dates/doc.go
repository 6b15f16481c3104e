// Package dates reads the dates that sitemaps and feeds carry, in the forms
// they really use, and gives them back in UTC. It does no I/O.
//
// W3C reads sitemap <lastmod> values (the W3C profile of ISO 8601 in every
// precision); Parse reads anything a feed may hold: RFC 3339, RFC 822 and 1123
// with or without a day name, two-digit years, named zones with their real
// offsets (time.Parse would give an unknown abbreviation offset 0), and the
// ISO 8601 variants publishing tools emit. A date without a zone is read as
// UTC, the least surprising guess.
package dates
