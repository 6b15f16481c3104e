package sitemap_test

import (
	"fmt"
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
