package feed_test

import (
	"errors"
	"fmt"

	"corpus.blog/corpusbot/feed"
)

// Parse reads RSS, Atom and JSON Feed alike; relative links resolve
// against the feed's URL, dates come back in UTC, and a declared next page
// (RFC 5005) is the way to the feed's archive.
func ExampleParse() {
	f, err := feed.Parse([]byte(`<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>A blog</title>
  <link>https://blog.example/</link>
  <atom:link rel="next" href="/feed?paged=2"/>
  <item>
    <title>Hello, world</title>
    <link>/2026/hello</link>
    <pubDate>Tue, 01 Dec 2026 10:00:00 +0100</pubDate>
  </item>
</channel>
</rss>`), "https://blog.example/feed")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Format, f.Title, f.Next)
	for _, e := range f.Entries {
		fmt.Println(e.Link, e.Title, e.Published)
	}
	// Output:
	// rss A blog https://blog.example/feed?paged=2
	// https://blog.example/2026/hello Hello, world 2026-12-01 09:00:00 +0000 UTC
}

// Discover lists the feeds a page declares, resolved against its URL, and
// leaves out comment feeds.
func ExampleDiscover() {
	page := []byte(`<!DOCTYPE html><html><head>
<title>A blog</title>
<link rel="alternate" type="application/rss+xml" title="A blog » Feed" href="/feed/">
<link rel="alternate" type="application/rss+xml" title="A blog » Comments Feed" href="/comments/feed/">
<link rel="alternate" type="application/feed+json" href="https://blog.example/feed.json">
</head><body>…</body></html>`)
	for _, l := range feed.Discover(page, "https://blog.example/2026/hello") {
		fmt.Println(l.Type, l.URL, l.Title)
	}
	// Output:
	// application/rss+xml https://blog.example/feed/ A blog » Feed
	// application/feed+json https://blog.example/feed.json
}

// Options bound what one parse may cost: past MaxEntries reading stops and
// the feed is marked Truncated. A JSON Feed reads into the same shape as RSS
// and Atom; what is not a feed is a *NotFeedError, matching ErrNotFeed.
func ExampleOptions_Parse() {
	doc := []byte(`{
  "version": "https://jsonfeed.org/version/1.1",
  "title": "A blog",
  "home_page_url": "https://blog.example/",
  "items": [
    {"id": "1", "url": "https://blog.example/one", "title": "One", "date_published": "2026-12-01T10:00:00+01:00"},
    {"id": "2", "url": "https://blog.example/two", "title": "Two"}
  ]
}`)
	f, err := feed.Options{MaxEntries: 1}.Parse(doc, "https://blog.example/feed.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Format, f.Version, f.Title, len(f.Entries), "entry, truncated:", f.Truncated)
	fmt.Println(f.Entries[0].Link, f.Entries[0].Published)

	_, err = feed.Parse([]byte("<!DOCTYPE html><html><body>Not found</body></html>"), "")
	fmt.Println(errors.Is(err, feed.ErrNotFeed), err)
	// Output:
	// json 1.1 A blog 1 entry, truncated: true
	// https://blog.example/one 2026-12-01 09:00:00 +0000 UTC
	// true not a feed: an HTML page
}
