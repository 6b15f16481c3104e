package robots_test

import (
	"fmt"

	"corpus.blog/corpusbot/robots"
)

// Parse reads a robots.txt body (it never fails: what is not a rule is
// ignored, as RFC 9309 asks); For picks the group of a product token, and
// Decide says whether a URL may be fetched and which line decided.
func ExampleParse() {
	f := robots.Parse([]byte(`User-agent: *
Disallow: /private/

User-agent: CorpusBot
Disallow: /drafts/
Allow: /drafts/published-anyway
Crawl-delay: 5

Sitemap: https://blog.example/sitemap.xml
`))
	rules := f.For("CorpusBot")
	for _, u := range []string{
		"https://blog.example/private/notes", // the * group does not apply to CorpusBot
		"https://blog.example/drafts/idea",
		"https://blog.example/drafts/published-anyway",
	} {
		d := rules.Decide(u)
		fmt.Printf("%v %s (line %d)\n", d.Allowed, u, d.Line)
	}
	delay, _ := rules.CrawlDelay()
	fmt.Println("crawl-delay:", delay)
	fmt.Println("sitemaps:", f.Sitemaps())
	// Output:
	// true https://blog.example/private/notes (line 0)
	// false https://blog.example/drafts/idea (line 5)
	// true https://blog.example/drafts/published-anyway (line 6)
	// crawl-delay: 5s
	// sitemaps: [https://blog.example/sitemap.xml]
}
