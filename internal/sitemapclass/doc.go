// Package sitemapclass is the crawler's reading of what a sitemap lists and
// what a sitemap entry names, from their URLs alone: a posts sitemap or a
// tag archive, a post or an author page, by the names and URL schemes the
// blog generators use (WordPress and its SEO plugins, Blogger, Ghost, Hugo,
// Jekyll, Shopify, Squarespace, Wix and others), and WantsPage, the rule for
// which entries are owed a page fetch.
//
// It is crawl policy, not part of reading a sitemap: the heuristics grow as
// generators are met, so they stay inside the module while the reader
// (corpus.blog/corpusbot/sitemap) is public.
package sitemapclass
