// Package simweb is a simulated web for tests: many host names served by one
// in-process httptest server, reached through the fetcher's normal path.
//
// Names resolve (through Web.Resolver) to a fake public address in TEST-NET-3,
// 203.0.113.10, which the fetcher's private-address guard accepts; Web.Dial
// then connects that address, and only that address, to the test server on
// loopback. So the guard stays on in every test, and nothing ever leaves
// 127.0.0.1: a name mapped elsewhere (Web.Resolve) is refused by the guard
// or, failing that, by Web.Dial, which never touches the real network.
//
// Every host is served on http (port 80) and https (port 443, with
// certificates from the Web's own authority, trusted through ClientTLS).
//
// Each host has its own robots.txt, pages, feeds and sitemaps (static
// resources with ETag, Last-Modified and 304 support) and fault switches.
// Every request is recorded with start and end times, so tests assert from
// the server side: never two in flight per site, gaps respected, robots.txt
// first, nothing disallowed fetched, no Cookie, the User-Agent exact,
// conditional headers on re-reads.
package simweb
