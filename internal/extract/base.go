package extract

import (
	"net/url"
	"strings"
)

// resolveBase is the URL the page's relative links resolve against, given
// the first <base href> (the HTML rule: later ones are ignored): href
// resolved against pageURL when that gives an http(s) URL of sane length;
// else pageURL.
func resolveBase(pageURL *url.URL, href string) *url.URL {
	href = strings.TrimSpace(href)
	if len(href) > MaxURLLength {
		return pageURL
	}
	u, err := pageURL.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return pageURL
	}
	return u
}
