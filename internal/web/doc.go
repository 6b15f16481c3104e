// Package web is the crawler's public site, the page its user agent points
// to and the place where operators and site owners see what it did:
//
//	/                    an overview
//	/crawler             who we are, the exact user agent, every rule in plain
//	                     words written from config.Settings, how to stop and
//	                     how to verify the crawler
//	/crawler/ips.json    the egress addresses, in Googlebot's googlebot.json shape
//	/crawler/policy.json the crawl policy in force, machine-readable: the user
//	                     agent, gaps, robots.txt TTLs and status rules, the
//	                     refusal rule, retries, limits, what is never
//	                     fetched, egress, opt-out and verification routes
//	                     (policy.go; schema: docs/policy-json.md)
//	/coverage            every gap with its reason and count, and SVG charts
//	/sources             sites, paginated by key (?after=SITE&limit=N&state=S)
//	/sources/{site}      one site: sources, feeds, sitemaps, robots.txt,
//	                     post counts, newest posts, citations, request log
//	/opt-out             a form: every source of a site paused at once
//	/claim, /claim/{secret}
//	                     prove control (DNS TXT or a well-known file), then
//	                     pause and resume
//	/api, /api/...       the same data as JSON
//
// Server-rendered with html/template and the standard ServeMux; templates
// and the one stylesheet are embedded. No page carries script: the
// Content-Security-Policy forbids it, and the charts are drawn on the server.
//
// The post text the crawler keeps is never served. The site reads through
// Data, whose types have no field that could carry it, and a test walks
// every page and API response looking for the stored texts of its fixture.
//
// Writes (the forms) are POSTs guarded by http.CrossOriginProtection, a
// token bucket per client address, a body limit and input validation.
// Nothing here opens a network connection of its own: claim files are read
// through ClaimFetcher (the crawler's polite fetcher), DNS through
// TXTResolver.
package web
