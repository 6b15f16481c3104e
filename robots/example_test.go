package robots_test

import (
	"errors"
	"fmt"
	"time"

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

// Decide is the fetch-status policy of RFC 9309 §2.3.1: what a crawler obeys
// after fetching robots.txt, and for how long, whatever the fetch gave.
func ExampleDecide() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ttl := robots.TTLs{Answer: 24 * time.Hour, Guess: time.Hour}
	last := &robots.Copy{
		File:      robots.Parse([]byte("User-agent: *\nDisallow: /admin/\n")),
		FetchedAt: now.Add(-48 * time.Hour),
	}
	for _, f := range []robots.Fetch{
		{Status: 200, Body: []byte("User-agent: *\nDisallow: /tmp/\n")},
		{Status: 404},
		{Status: 403},
		{Status: 503},                    // the copy of two days ago is obeyed
		{Err: errors.New("i/o timeout")}, // so it is after a network failure
		{Status: 301, Redirects: robots.MaxRedirects}, // one redirect too many
	} {
		v := robots.Decide(f, last, time.Time{}, now, ttl)
		rules := v.For("MyBot")
		fmt.Printf("%-10s keep %-7v /admin/ %-5v /tmp/ %v\n",
			v.State, v.TTL, rules.Allowed("/admin/"), rules.Allowed("/tmp/"))
	}
	// Output:
	// parsed     keep 24h0m0s /admin/ true  /tmp/ false
	// no-file    keep 1h0m0s  /admin/ true  /tmp/ true
	// refused    keep 24h0m0s /admin/ false /tmp/ false
	// stale-copy keep 1h0m0s  /admin/ false /tmp/ true
	// stale-copy keep 1h0m0s  /admin/ false /tmp/ true
	// no-file    keep 1h0m0s  /admin/ true  /tmp/ true
}

// ProductToken gives the token robots.txt groups are matched against from a
// full User-Agent string; Decision.Rule shows which line decided.
func ExampleProductToken() {
	token := robots.ProductToken("Mozilla/5.0 (compatible; MyBot/2.1; +https://bot.example/)")
	rules := robots.Parse([]byte("User-agent: mybot\nDisallow: /search\nAllow: /search/about\n")).For(token)
	d := rules.Decide("https://site.example/search?q=go")
	fmt.Println(token, d.Allowed, d.Rule(), "line", d.Line)
	// Output:
	// MyBot false Disallow: /search line 2
}
