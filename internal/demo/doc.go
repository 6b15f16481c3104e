// Package demo is corpusbot's offline demonstration and its crawl-efficiency
// benchmark: a simulated population of blogs on package simweb (robots.txt
// variants, RSS, Atom and JSON feeds, paged catalogues, sitemaps and sitemap
// indexes, client-rendered shells, noindex pages, a site that refuses us),
// which changes deterministically from one simulated day to the next.
//
// Run crawls it with the real crawler (crawl.Crawler over fetch.New and a
// fresh SQLite store, the private-address guard on), then with a naive
// crawler that walks every link, each on its own copy of the same web, and
// returns a Report of what both cost the sites, counted on the server side.
//
// Everything is in-process and on loopback; nothing needs the network.
package demo
