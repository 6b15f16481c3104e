package robots

import "strings"

// Rules and request paths are brought to one spelling before they are
// compared (RFC 9309 §2.2.2 and RFC 3986 §6.2.2): escapes of unreserved
// characters are decoded, every other escape keeps its meaning with its hex
// upper-cased, and octets that may not appear raw in a URI are escaped.

const upperHex = "0123456789ABCDEF"

// keptAsIs holds the octets that normalising a request path leaves unchanged.
var keptAsIs = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = !mustEscape(byte(c)) && c != '%' && c != '*' && c != '$'
	}
	return t
}()

// isNormal reports whether a request path is already in normal form.
func isNormal(path string) bool {
	for i := 0; i < len(path); i++ {
		if !keptAsIs[path[i]] {
			return false
		}
	}
	return true
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// mustEscape reports the octets that are never legal raw in a URI: controls,
// space, non-ASCII, and the few printable characters RFC 3986 excludes.
func mustEscape(c byte) bool {
	if c <= ' ' || c >= 0x7F {
		return true
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return false
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func appendEscaped(dst []byte, c byte) []byte {
	return append(dst, '%', upperHex[c>>4], upperHex[c&15])
}

// appendNormalized appends the normalised spelling of s to dst. In a pattern
// "*" stays a wildcard and a final "$" stays an anchor; in a request path both
// are literal characters and are escaped, which is also how a pattern spells
// them when they are not special (%2A, %24).
func appendNormalized(dst []byte, s string, pattern bool) []byte {
	if pattern {
		return appendNormalizedAs(dst, s, asPattern)
	}
	return appendNormalizedAs(dst, s, asRequestPath)
}

// AppendNormalizedURI appends to dst the normalised spelling of the path or
// query of a URI, by the rules robots.txt matching applies to rules and
// request paths (see the package documentation): escapes of unreserved
// characters are decoded, every other escape keeps its meaning with its hex
// upper-cased (%2F stays %2F), a "%" that starts no escape is written %25, and
// controls, space, non-ASCII octets (so UTF-8 text) and the few printable
// characters RFC 3986 excludes are escaped. Only "*" and "$" differ: they are
// robots.txt's own metacharacters and mean nothing special in a URI, so they
// are left as written. A URI normalised this way gets the same robots.txt
// decision as the URI it came from. s must not hold the fragment: a "#" is
// kept as written.
func AppendNormalizedURI(dst []byte, s string) []byte {
	return appendNormalizedAs(dst, s, asURI)
}

// normalizeMode says how "*" and "$" are read while normalising.
type normalizeMode uint8

const (
	asRequestPath normalizeMode = iota // literal characters, escaped
	asPattern                          // a wildcard, and an anchor when final
	asURI                              // ordinary characters, kept as written
)

func appendNormalizedAs(dst []byte, s string, mode normalizeMode) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			hi, ok1 := byte(0), false
			lo, ok2 := byte(0), false
			if i+2 < len(s) {
				hi, ok1 = unhex(s[i+1])
				lo, ok2 = unhex(s[i+2])
			}
			if !ok1 || !ok2 {
				// A stray percent sign is a literal one.
				dst = appendEscaped(dst, '%')
				continue
			}
			if v := hi<<4 | lo; isUnreserved(v) {
				dst = append(dst, v)
			} else {
				dst = appendEscaped(dst, v)
			}
			i += 2
		case mustEscape(c):
			dst = appendEscaped(dst, c)
		case c == '*':
			if mode != asRequestPath {
				dst = append(dst, c)
			} else {
				dst = appendEscaped(dst, c)
			}
		case c == '$':
			if mode == asURI || mode == asPattern && i == len(s)-1 {
				dst = append(dst, c)
			} else {
				dst = appendEscaped(dst, c)
			}
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// requestPath returns the part of a URL that rules are matched against: the
// path and the query, without the fragment. It accepts absolute URLs,
// scheme-relative ones, bare "host/path" strings and plain paths, as Google's
// matcher does, and reports whether a leading "/" has to be supplied (for
// "example.com?a", whose path is "/?a").
func requestPath(url string) (path string, addSlash bool) {
	if len(url) > 0 && url[0] == '/' && (len(url) == 1 || url[1] != '/') {
		// Already a path, the common case for a crawler's own calls.
		if i := strings.IndexByte(url, '#'); i >= 0 {
			return url[:i], false
		}
		return url, false
	}
	start := 0
	if len(url) >= 2 && url[0] == '/' && url[1] == '/' {
		start = 2
	}
	earlyPath := indexAnyFrom(url, start, "/?;")
	protoEnd := indexFrom(url, start, "://")
	if protoEnd < 0 || (earlyPath >= 0 && earlyPath < protoEnd) {
		protoEnd = start
	} else {
		protoEnd += 3
	}
	pathStart := indexAnyFrom(url, protoEnd, "/?;")
	if pathStart < 0 {
		return "/", false
	}
	hash := indexFrom(url, start, "#")
	if hash >= 0 && hash < pathStart {
		return "/", false
	}
	end := len(url)
	if hash >= 0 {
		end = hash
	}
	return url[pathStart:end], url[pathStart] != '/'
}

func indexFrom(s string, from int, sub string) int {
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}

func indexAnyFrom(s string, from int, chars string) int {
	if i := strings.IndexAny(s[from:], chars); i >= 0 {
		return from + i
	}
	return -1
}
