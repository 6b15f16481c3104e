package sitemap_test

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"corpus.blog/corpusbot/sitemap"
)

// Read streams a sitemap's entries to a function, whatever the document
// (a urlset, a sitemap index, a text sitemap, a feed; gzip or not), and
// returns what it read: a 50,000-URL sitemap is never held in memory.
func ExampleRead() {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://blog.example/2026/hello</loc><lastmod>2026-12-01</lastmod></url>
  <url><loc>https://blog.example/about</loc></url>
  <url><loc>not a URL</loc></url>
</urlset>`
	sum, err := sitemap.Read(strings.NewReader(doc), sitemap.Options{}, func(e sitemap.Entry) error {
		fmt.Println(e.Type, e.Loc, e.Lastmod.Format("2006-01-02"))
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Format, sum.URLs, "URLs,", sum.Skipped, "skipped")
	// Output:
	// url https://blog.example/2026/hello 2026-12-01
	// url https://blog.example/about 0001-01-01
	// urlset 2 URLs, 1 skipped
}

// A sitemap index lists other sitemaps, as Sitemap entries for the caller to
// fetch; a text sitemap is one URL a line. Options lowers the protocol's
// limits: past them reading stops and the Summary says the file was cut.
func ExampleRead_limits() {
	index := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://blog.example/post-sitemap.xml</loc></sitemap>
</sitemapindex>`
	text := "https://blog.example/a\nhttps://blog.example/b\nhttps://blog.example/c\n"
	for _, doc := range []string{index, text} {
		sum, err := sitemap.Read(strings.NewReader(doc), sitemap.Options{MaxEntries: 2}, func(e sitemap.Entry) error {
			fmt.Println(e.Type, e.Loc)
			return nil
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d entries, truncated %v\n", sum.Format, sum.Entries(), sum.Truncated)
	}
	// Output:
	// sitemap https://blog.example/post-sitemap.xml
	// sitemapindex: 1 entries, truncated false
	// url https://blog.example/a
	// url https://blog.example/b
	// text: 2 entries, truncated true
}

// Many sites answer /sitemap.xml with an HTML page and status 200. Read says
// so before giving any entry, and a feed offered as a sitemap is read as one,
// its relative links resolved against Options.Base.
func ExampleRead_notASitemap() {
	page := "<!DOCTYPE html><html><head><title>Not found</title></head><body>Sorry</body></html>"
	_, err := sitemap.Read(strings.NewReader(page), sitemap.Options{}, func(sitemap.Entry) error { return nil })
	var notSitemap *sitemap.NotSitemapError
	fmt.Println(errors.As(err, &notSitemap), err)

	feed := `<rss version="2.0"><channel><title>A blog</title>
  <item><link>/2026/hello</link><pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item>
</channel></rss>`
	base, _ := url.Parse("https://blog.example/feed/")
	sum, _ := sitemap.Read(strings.NewReader(feed), sitemap.Options{Base: base}, func(e sitemap.Entry) error {
		fmt.Println(e.Loc, e.Lastmod)
		return nil
	})
	fmt.Println(sum.Format)
	// Output:
	// true not a sitemap: an HTML page
	// https://blog.example/2026/hello 2026-12-01 10:00:00 +0000 UTC
	// rss
}
