package extract

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// baseURL is the URL the page's relative links resolve against: the first
// <base href> (the HTML rule: later ones are ignored), resolved against
// pageURL, when it gives an http(s) URL of sane length; else pageURL.
func baseURL(doc *html.Node, pageURL *url.URL) *url.URL {
	base := pageURL
	found := false
	elements(doc, func(n *html.Node) bool {
		if found {
			return false
		}
		if n.Data != "base" || !hasAttr(n, "href") {
			return true
		}
		found = true
		href := strings.TrimSpace(attr(n, "href"))
		if len(href) > MaxURLLength {
			return false
		}
		u, err := pageURL.Parse(href)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return false
		}
		base = u
		return false
	})
	return base
}
