package demo

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/simweb/farm"
)

// feedPages is how many pages the feed has: one unless it is paged.
func feedPages(b *Blog, live int) int {
	if b.Catalogue == farm.CatalogueNone {
		return 1
	}
	return max(1, (live+b.feedSize()-1)/b.feedSize())
}

// feedPageParam is the query parameter that selects a page of the feed.
func feedPageParam(b *Blog) string {
	if b.Catalogue == farm.CatalogueNext {
		return "page"
	}
	return "paged"
}

// feedPageURL is the absolute URL of page n of the feed.
func feedPageURL(b *Blog, n int) string {
	if n <= 1 {
		return b.URL(b.FeedPath())
	}
	return fmt.Sprintf("%s?%s=%d", b.URL(b.FeedPath()), feedPageParam(b), n)
}

// feedPage renders page n (from 1) of the feed over the live posts.
func feedPage(b *Blog, live []*Post, n int) string {
	size := b.feedSize()
	lo, hi := (n-1)*size, min(n*size, len(live))
	entries := live[lo:hi]
	next := ""
	if b.Catalogue == farm.CatalogueNext && hi < len(live) {
		next = feedPageURL(b, n+1)
	}
	switch b.Feed {
	case farm.FeedAtom:
		return atomFeed(b, entries, next)
	case farm.FeedJSON:
		return jsonFeed(b, entries, next)
	}
	return rssFeed(b, entries, next)
}

// summary is the short description a summary feed carries.
func summary(p *Post) string { return prose(p.seed^0x5a5a, 30) }

// fullText is the post's whole text as a full-content feed carries it.
func fullText(p *Post) string {
	var b strings.Builder
	for _, para := range paragraphs(p.seed+uint64(p.Rev)*7919, 5) {
		b.WriteString("<p>" + para + "</p>")
	}
	return b.String()
}

func newest(entries []*Post) time.Time {
	var t time.Time
	for _, p := range entries {
		if p.Updated.After(t) {
			t = p.Updated
		}
	}
	return t
}

func rssFeed(b *Blog, entries []*Post, next string) string {
	var s strings.Builder
	s.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	s.WriteString(`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">` + "\n<channel>\n")
	fmt.Fprintf(&s, "<title>%s</title>\n<link>%s</link>\n<description>Posts from %s</description>\n", b.Host, b.URL("/"), b.Host)
	fmt.Fprintf(&s, "<atom:link rel=\"self\" href=\"%s\"/>\n", b.URL(b.FeedPath()))
	if next != "" {
		fmt.Fprintf(&s, "<atom:link rel=\"next\" href=\"%s\"/>\n", next)
	}
	if t := newest(entries); !t.IsZero() {
		fmt.Fprintf(&s, "<lastBuildDate>%s</lastBuildDate>\n", t.Format(time.RFC1123Z))
	}
	for _, p := range entries {
		fmt.Fprintf(&s, "<item><title>%s</title><link>%s</link><guid>%s</guid><pubDate>%s</pubDate><atom:updated>%s</atom:updated>",
			html.EscapeString(p.Title), b.URL(p.Path), b.URL(p.Path), p.Published.Format(time.RFC1123Z), p.Updated.Format(time.RFC3339))
		if b.Full {
			fmt.Fprintf(&s, "<content:encoded><![CDATA[%s]]></content:encoded>", fullText(p))
		} else {
			fmt.Fprintf(&s, "<description>%s</description>", html.EscapeString(summary(p)))
		}
		s.WriteString("</item>\n")
	}
	s.WriteString("</channel>\n</rss>\n")
	return s.String()
}

func atomFeed(b *Blog, entries []*Post, next string) string {
	var s strings.Builder
	s.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n" + `<feed xmlns="http://www.w3.org/2005/Atom">` + "\n")
	fmt.Fprintf(&s, "<title>%s</title>\n<id>%s</id>\n<link rel=\"alternate\" href=\"%s\"/>\n<link rel=\"self\" href=\"%s\"/>\n",
		b.Host, b.URL("/"), b.URL("/"), b.URL(b.FeedPath()))
	if next != "" {
		fmt.Fprintf(&s, "<link rel=\"next\" href=\"%s\"/>\n", next)
	}
	fmt.Fprintf(&s, "<updated>%s</updated>\n", newest(entries).Format(time.RFC3339))
	for _, p := range entries {
		fmt.Fprintf(&s, "<entry><title>%s</title><id>%s</id><link rel=\"alternate\" href=\"%s\"/><published>%s</published><updated>%s</updated>",
			html.EscapeString(p.Title), b.URL(p.Path), b.URL(p.Path), p.Published.Format(time.RFC3339), p.Updated.Format(time.RFC3339))
		if b.Full {
			fmt.Fprintf(&s, "<content type=\"html\">%s</content>", html.EscapeString(fullText(p)))
		} else {
			fmt.Fprintf(&s, "<summary>%s</summary>", html.EscapeString(summary(p)))
		}
		s.WriteString("</entry>\n")
	}
	s.WriteString("</feed>\n")
	return s.String()
}

type jsonItem struct {
	ID            string `json:"id"`
	URL           string `json:"url"`
	Title         string `json:"title"`
	ContentHTML   string `json:"content_html,omitempty"`
	Summary       string `json:"summary,omitempty"`
	DatePublished string `json:"date_published"`
	DateModified  string `json:"date_modified"`
}

func jsonFeed(b *Blog, entries []*Post, next string) string {
	doc := struct {
		Version     string     `json:"version"`
		Title       string     `json:"title"`
		HomePageURL string     `json:"home_page_url"`
		FeedURL     string     `json:"feed_url"`
		NextURL     string     `json:"next_url,omitempty"`
		Items       []jsonItem `json:"items"`
	}{Version: "https://jsonfeed.org/version/1.1", Title: b.Host, HomePageURL: b.URL("/"), FeedURL: b.URL(b.FeedPath()), NextURL: next}
	for _, p := range entries {
		it := jsonItem{ID: b.URL(p.Path), URL: b.URL(p.Path), Title: p.Title,
			DatePublished: p.Published.Format(time.RFC3339), DateModified: p.Updated.Format(time.RFC3339)}
		if b.Full {
			it.ContentHTML = fullText(p)
		} else {
			it.Summary = summary(p)
		}
		doc.Items = append(doc.Items, it)
	}
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		panic(err) // plain strings only: cannot fail
	}
	return string(out) + "\n"
}
