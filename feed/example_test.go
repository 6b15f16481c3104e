package feed_test

import (
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
