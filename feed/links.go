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
