package feed

import (
	"net/url"
	"strings"
)

// resolve makes href absolute against base. An absolute http(s) href is kept
// exactly as written (the common case, and no allocation); one that cannot be
// parsed is kept as written rather than lost; with no base a relative href
// stays relative. A result longer than MaxURLLength is dropped.
func resolve(href string, base *url.URL) string {
	href = strings.TrimSpace(href)
	if href == "" || len(href) > MaxURLLength {
		return ""
	}
	if base == nil || isAbsoluteHTTP(href) {
		return href
	}
	ref, err := url.Parse(href)
	if err != nil {
		return href
	}
	s := base.ResolveReference(ref).String()
	if len(s) > MaxURLLength {
		return ""
	}
	return s
}

// resolveBase applies an xml:base (or HTML <base href>) value to the base in
// effect around it.
func resolveBase(value string, parent *url.URL) *url.URL {
	value = strings.TrimSpace(value)
	if value == "" || len(value) > MaxURLLength {
		return parent
	}
	ref, err := url.Parse(value)
	if err != nil {
		return parent
	}
	if parent == nil {
		return ref
	}
	return parent.ResolveReference(ref)
}

func isAbsoluteHTTP(s string) bool {
	return hasPrefixFoldString(s, "http://") || hasPrefixFoldString(s, "https://")
}

func hasPrefixFoldString(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// isPermalink reports whether an identifier (an RSS guid, a JSON Feed id, an
// Atom id) can stand in for a missing link: an absolute http(s) URL, or a path
// from the site's root. A bare "1234" or a tag: URI is an identifier only.
func isPermalink(id string) bool {
	id = strings.TrimSpace(id)
	return isAbsoluteHTTP(id) || (strings.HasPrefix(id, "/") && !strings.HasPrefix(id, "//"))
}

// relMatches reports whether an Atom rel value names want. A missing rel is
// "alternate" (RFC 4287 §4.2.7.2), and the IANA registry's full IRIs name the
// same relations as the short forms.
func relMatches(rel, want string) bool {
	rel = strings.TrimSpace(rel)
	if rel == "" {
		return want == "alternate"
	}
	rel = strings.TrimPrefix(rel, "http://www.iana.org/assignments/relation/")
	return strings.EqualFold(rel, want)
}

// mediaType is a type attribute without parameters, lower-cased.
func mediaType(s string) string {
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// alternate picks the best rel="alternate" link among those offered: the
// first text/html (or XHTML) one, else the first without a type, else the
// first of any type.
type alternate struct {
	href string
	rank int // 0: none yet
}

func (a *alternate) offer(href, typ string) {
	if href == "" {
		return
	}
	rank := 1
	switch mediaType(typ) {
	case "text/html", "application/xhtml+xml":
		rank = 3
	case "":
		rank = 2
	}
	if rank > a.rank {
		a.href, a.rank = href, rank
	}
}
