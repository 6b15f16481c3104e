package demo

import (
	"fmt"
	"html"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/simweb/farm"
)

// The HTML of a blog: a homepage listing the newest posts, listing pages
// behind it (/page/N/), an about page, and one page per post linking its
// neighbours. Every post is reachable by links, so the naive crawler finds
// what the feeds and sitemaps declare.

// listSize is how many posts the homepage and each listing page show.
const listSize = 10

func pageHead(b *strings.Builder, blog *Blog, titleText, extra string) {
	fmt.Fprintf(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s | %s</title>\n", html.EscapeString(titleText), blog.Host)
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	b.WriteString(`<link rel="stylesheet" href="/static/style.css">` + "\n")
	if blog.Feed != farm.FeedNone && !blog.Unlinked {
		fmt.Fprintf(b, `<link rel="alternate" type="%s" title="%s" href="%s">`+"\n", feedType(blog.Feed), blog.Host, blog.FeedPath())
	}
	b.WriteString(extra)
	b.WriteString("</head>\n<body>\n")
	fmt.Fprintf(b, `<header><a class="skip" href="#main">Skip to content</a><nav><a href="/">%s</a> · <a href="/about/">About</a></nav></header>`+"\n", blog.Host)
}

func pageFoot(b *strings.Builder, blog *Blog) {
	b.WriteString("<footer><p>Written by hand, served by a small server.")
	if blog.Feed != farm.FeedNone {
		fmt.Fprintf(b, ` <a href="%s">Subscribe</a>.`, blog.FeedPath())
	}
	b.WriteString("</p></footer>\n</body></html>\n")
}

// listing is the homepage (n = 1) or listing page n of live posts.
func listing(blog *Blog, live []*Post, n int) string {
	var b strings.Builder
	name := "Home"
	if n > 1 {
		name = fmt.Sprintf("Page %d", n)
	}
	pageHead(&b, blog, name, "")
	b.WriteString(`<main id="main"><ul class="posts">` + "\n")
	lo, hi := (n-1)*listSize, min(n*listSize, len(live))
	for _, p := range live[lo:hi] {
		fmt.Fprintf(&b, `<li><a href="%s">%s</a> <time datetime="%s">%s</time></li>`+"\n",
			p.Path, html.EscapeString(p.Title), p.Published.Format(time.RFC3339), p.Published.Format("2 January 2006"))
	}
	b.WriteString("</ul>\n")
	if n > 1 {
		fmt.Fprintf(&b, `<a rel="prev" href="%s">Newer posts</a> `, listingPath(n-1))
	}
	if hi < len(live) {
		fmt.Fprintf(&b, `<a rel="next" href="%s">Older posts</a>`, listingPath(n+1))
	}
	b.WriteString("</main>\n")
	pageFoot(&b, blog)
	return b.String()
}

func listingPath(n int) string {
	if n <= 1 {
		return "/"
	}
	return fmt.Sprintf("/page/%d/", n)
}

func listingPages(live int) int { return max(1, (live+listSize-1)/listSize) }

func about(blog *Blog) string {
	var b strings.Builder
	pageHead(&b, blog, "About", "")
	fmt.Fprintf(&b, "<main id=\"main\"><h1>About</h1><p>%s</p></main>\n", prose(uint64(len(blog.Host))*977, 80))
	pageFoot(&b, blog)
	return b.String()
}

// postPage is a post's page; prev and next are its live neighbours (nil at
// the ends).
func postPage(blog *Blog, p, prev, next *Post) string {
	if blog.Shell {
		return shellPage(blog, p)
	}
	var b strings.Builder
	extra := fmt.Sprintf(`<meta property="article:published_time" content="%s">`+"\n", p.Published.Format(time.RFC3339))
	if p.Noindex {
		extra += `<meta name="robots" content="noindex">` + "\n"
	}
	pageHead(&b, blog, p.Title, extra)
	fmt.Fprintf(&b, "<main id=\"main\"><article>\n<h1>%s</h1>\n<p class=\"meta\"><time datetime=\"%s\">%s</time></p>\n",
		html.EscapeString(p.Title), p.Published.Format(time.RFC3339), p.Published.Format("2 January 2006"))
	for i, para := range paragraphs(p.seed+uint64(p.Rev)*7919, 5) {
		if i == 2 {
			fmt.Fprintf(&b, "<p>%s <a href=\"https://cited-%d.example/notes/%d\">as argued elsewhere</a>.</p>\n", para, p.seed%7, p.seed%97)
			continue
		}
		fmt.Fprintf(&b, "<p>%s</p>\n", para)
	}
	if p.Rev > 0 {
		fmt.Fprintf(&b, "<p><em>Updated %s (revision %d).</em></p>\n", p.Updated.Format("2 January 2006"), p.Rev)
	}
	b.WriteString("</article>\n<nav class=\"post-nav\">")
	if prev != nil {
		fmt.Fprintf(&b, `<a rel="prev" href="%s">%s</a> `, prev.Path, html.EscapeString(prev.Title))
	}
	if next != nil {
		fmt.Fprintf(&b, `<a rel="next" href="%s">%s</a>`, next.Path, html.EscapeString(next.Title))
	}
	b.WriteString("</nav></main>\n")
	pageFoot(&b, blog)
	return b.String()
}

// shellPage is what a client-rendered blog serves: an empty mount point and
// a script bundle; the text arrives only in a browser.
func shellPage(blog *Blog, p *Post) string {
	return fmt.Sprintf(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%s | %s</title>
<script type="module" src="/static/app.%x.js"></script></head>
<body><div id="root"></div><noscript>This site needs JavaScript.</noscript></body></html>
`, html.EscapeString(p.Title), blog.Host, p.seed%0xffff)
}

func feedType(k farm.FeedKind) string {
	switch k {
	case farm.FeedAtom:
		return "application/atom+xml"
	case farm.FeedJSON:
		return "application/feed+json"
	}
	return "application/rss+xml"
}
