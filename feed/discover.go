package feed

import (
	"bytes"
	"net/url"
	"strings"

	xhtml "golang.org/x/net/html"

	"corpus.blog/corpusbot/internal/entryurl"
)

// Link is a feed a page declares with <link rel="alternate">.
type Link struct {
	URL   string // resolved against <base href>, then the page URL
	Type  string // the media type as declared, lower-cased, without parameters
	Title string
}

// MaxDiscoverBytes is how much of a page Discover reads. A page's <head> is
// almost always within its first few kilobytes; the bound is generous so that
// a head bloated with inline scripts and styles is still read whole.
const MaxDiscoverBytes = 1 << 20

// maxDiscovered bounds the links returned, whatever the page holds.
const maxDiscovered = 64

// Discover lists the feeds an HTML page declares, in document order, without
// duplicates and without comment feeds (by URL or by title). It reads
// <link rel="alternate"> whose rel list (space-separated, any case) holds
// "alternate" and whose type is RSS (application/rss+xml), Atom
// (application/atom+xml) or JSON Feed (application/feed+json). The older
// type application/json counts only when the title or the file name says
// "feed", because WordPress gives every page an application/json alternate
// for its REST API.
//
// Feeds belong in the <head>, but the head of a real page is often broken
// (a stray tag closes it early and the parser moves the rest to the body), so
// <link> elements are read wherever they stand in the first MaxDiscoverBytes
// of the page. Text inside <script>, <style>, <textarea> and comments is not
// read as markup. Links that resolve to a scheme other than http(s) are
// dropped.
func Discover(page []byte, pageURL string) []Link {
	if len(page) > MaxDiscoverBytes {
		page = page[:MaxDiscoverBytes]
	}
	z := xhtml.NewTokenizer(bytes.NewReader(page))
	var raw []Link
	baseHref, sawBase := "", false
	for len(raw) < 4*maxDiscovered {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		switch string(name) {
		case "base":
			// Only the first <base href> counts, and it counts for the whole
			// document, links before it included (HTML §4.2.3).
			if href, ok := tagAttrs(z)["href"]; ok && !sawBase {
				baseHref, sawBase = href, true
			}
		case "link":
			a := tagAttrs(z)
			if !hasToken(a["rel"], "alternate") {
				continue
			}
			typ := entryurl.MediaType(a["type"])
			title := collapseSpace(a["title"])
			if !isFeedType(typ, title, a["href"]) || isCommentTitle(title) {
				continue
			}
			raw = append(raw, Link{URL: a["href"], Type: typ, Title: title})
		}
	}

	base := parseBase(pageURL)
	if sawBase {
		base = resolveBase(baseHref, base)
	}
	var links []Link
	seen := map[string]bool{}
	for _, l := range raw {
		l.URL = resolve(l.URL, base)
		if l.URL == "" || seen[l.URL] || IsCommentFeedURL(l.URL) || !httpOrRelative(l.URL) {
			continue
		}
		seen[l.URL] = true
		links = append(links, l)
		if len(links) == maxDiscovered {
			break
		}
	}
	return links
}

// tagAttrs returns the attributes of the tag just read (names lower-cased by
// the tokenizer, values with entities decoded); the first of a repeated
// attribute wins, as in HTML.
func tagAttrs(z *xhtml.Tokenizer) map[string]string {
	a := make(map[string]string, 4)
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, dup := a[string(k)]; !dup {
			a[string(k)] = string(v)
		}
	}
	return a
}

// hasToken reports whether a space-separated list holds tok, in any case.
func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

func isFeedType(typ, title, href string) bool {
	switch typ {
	case "application/rss+xml", "application/atom+xml", "application/feed+json":
		return true
	case "application/json":
		return strings.Contains(strings.ToLower(title), "feed") || looksLikeFeedFile(href)
	}
	return false
}

func looksLikeFeedFile(href string) bool {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return false
	}
	name := strings.ToLower(u.Path[strings.LastIndexByte(u.Path, '/')+1:])
	return strings.Contains(name, "feed") && strings.HasSuffix(name, ".json")
}

func httpOrRelative(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	return u.Scheme == "" || u.Scheme == "http" || u.Scheme == "https"
}
