package urlkey

import (
	"errors"
	"fmt"
	"strings"
)

// Canonical returns the key of a canonical link: href, from a
// <link rel="canonical"> or a `Link: <…>; rel="canonical"` header, resolved
// against base, the URL of the page it was found on (or the page's
// <base href>). Tabs and newlines inside href are removed and spaces around
// it trimmed, as browsers do. It fails when href is empty (it would name the
// page itself and says nothing), when base is not a URL Key accepts, and when
// the result is not an http or https URL with a host.
//
// Whether the canonical URL is on the same site, and what to do when it is
// not, is the caller's decision (model.SiteOfURL names the site).
func Canonical(base, href string) (string, error) {
	href = strings.Trim(href, " \t\n\r\f")
	if strings.ContainsAny(href, "\t\n\r") {
		href = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, href)
	}
	if href == "" {
		return "", errors.New("urlkey: empty canonical link")
	}
	b, err := Key(base)
	if err != nil {
		return "", fmt.Errorf("urlkey: canonical link %q: base: %w", href, err)
	}
	key, err := Key(resolve(b, href))
	if err != nil {
		return "", fmt.Errorf("urlkey: canonical link %q on %s: %w", href, b, err)
	}
	return key, nil
}

// resolve is RFC 3986 §5.2.2 for a base that is a key, on the strings as
// written; Key then removes the dot segments and normalises the result.
// (url.URL.ResolveReference would decode %2F on the way.)
func resolve(base, ref string) string {
	if hasScheme(ref) {
		return ref
	}
	p, _ := split(base) // base is a key
	switch {
	case strings.HasPrefix(ref, "//"):
		return p.scheme + ":" + ref
	case strings.HasPrefix(ref, "/"):
		return p.scheme + "://" + p.host + ref
	case strings.HasPrefix(ref, "?"):
		return p.scheme + "://" + p.host + p.path + ref
	case strings.HasPrefix(ref, "#"):
		return base
	}
	dir := p.path[:strings.LastIndexByte(p.path, '/')+1]
	return p.scheme + "://" + p.host + dir + ref
}

// hasScheme reports whether ref starts with a scheme and its ":" (RFC 3986
// §3.1), which makes it absolute.
func hasScheme(ref string) bool {
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}
