// Package model is corpusbot's vocabulary, shared by the crawl, the store
// and the public site: the states of sources, feeds, sitemaps, posts and
// WebSub subscriptions, the reasons of the coverage gaps, the site rule
// (which hosts are one site), the read-only views the public site shows,
// the fetcher's words for a request's purpose and outcome and its record
// of each request (vocabulary.go), and what the store keeps for the
// fetcher (fetcherstate.go). (An origin's robots.txt standing is a
// robots.State, the outcome of that package's policy.) It does no I/O and
// imports nothing of the project, so every other package may import it; a concept
// named here is named nowhere else.
package model

import "errors"

// ErrNotFound is returned when a looked-up site, source, post, feed,
// sitemap or owner's claim does not exist. The public site turns it into
// a 404.
var ErrNotFound = errors.New("not found")
