package extract

import (
	"net/url"
	"strings"
)

// MaxURLLength is the longest citation kept, in bytes; browsers and servers
// rarely go past 2,000 and a longer one is more likely junk than a source.
const MaxURLLength = 2048

// citations are the distinct http(s) links among hrefs (those of the text
// kept, in document order), with the host in lower case and the rest as
// written. Readability has already made them absolute against base; they
// are resolved once more so that whatever it left relative is caught too.
func citations(hrefs []string, base, pageURL *url.URL) []string {
	self := stripFragment(*pageURL)
	seen := map[string]bool{self: true}
	var out []string
	for _, href := range hrefs {
		href = strings.TrimSpace(href)
		if href == "" || len(href) > MaxURLLength {
			continue
		}
		u, err := base.Parse(href)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		u.Host = strings.ToLower(u.Host) // so that case cannot make duplicates
		s := stripFragment(*u)
		if len(s) > MaxURLLength || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// stripFragment is u without its #fragment: a link to a heading of a page
// cites the page.
func stripFragment(u url.URL) string {
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
