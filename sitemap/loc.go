package sitemap

import (
	"bytes"
	"net/url"
	"unicode"
	"unicode/utf8"
)

// validLoc reports whether loc is a URL a crawler can fetch: absolute, http
// or https (in any case), with a host, accepted by net/url, and free of
// whitespace, control characters and invalid UTF-8. Most locs are plain
// ASCII URLs that a quick look settles; the rest go through url.Parse.
func validLoc(loc []byte) bool {
	switch quickLoc(loc) {
	case locGood:
		return true
	case locBad:
		return false
	}
	for _, c := range loc {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	if !utf8.Valid(loc) {
		return false
	}
	u, err := url.Parse(string(loc))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != ""
}

// trimLoc trims the white space XML does not know around a loc: a no-break
// space, the U+2000 spaces, a zero-width space or a stray byte order mark
// pasted in with the URL. None can stand in a URL unescaped, so trimming them
// only saves a loc that would otherwise be dropped. XML's own white space is
// gone already; a loc with no non-ASCII byte at either end costs one test.
func trimLoc(loc []byte) []byte {
	if len(loc) == 0 || loc[0] < utf8.RuneSelf && loc[len(loc)-1] < utf8.RuneSelf {
		return loc
	}
	return bytes.TrimFunc(loc, func(r rune) bool {
		return unicode.IsSpace(r) || r == '\u200B' || r == '\uFEFF'
	})
}

type verdict uint8

const (
	locUnsure verdict = iota
	locGood
	locBad
)

// quickLoc settles the common case: http(s)://host[:port] followed by
// characters that need no second look. It never says locGood of a URL that
// url.Parse would refuse (FuzzQuickLoc holds it to that).
func quickLoc(loc []byte) verdict {
	rest, ok := cutScheme(loc)
	if !ok {
		return locBad
	}
	// The host: letters, digits, dots and hyphens, then an optional port.
	i := 0
	for i < len(rest) && hostByte[rest[i]] {
		i++
	}
	if i == 0 {
		return locUnsure // userinfo, an IP literal, a non-ASCII name, or nothing
	}
	if i < len(rest) && rest[i] == ':' {
		i++
		for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
			i++
		}
	}
	if i < len(rest) && rest[i] != '/' && rest[i] != '?' && rest[i] != '#' {
		return locUnsure
	}
	for ; i < len(rest); i++ {
		c := rest[i]
		if c == '%' {
			if i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2]) {
				return locUnsure
			}
			i += 2
			continue
		}
		if !pathByte[c] {
			if c <= ' ' || c == 0x7f {
				return locBad
			}
			return locUnsure
		}
	}
	return locGood
}

// cutScheme removes "http://" or "https://" from the start of loc, in any
// case.
func cutScheme(loc []byte) ([]byte, bool) {
	if len(loc) < len("http://") || loc[0]|0x20 != 'h' || loc[1]|0x20 != 't' || loc[2]|0x20 != 't' || loc[3]|0x20 != 'p' {
		return nil, false
	}
	rest := loc[4:]
	if rest[0]|0x20 == 's' {
		rest = rest[1:]
	}
	if len(rest) < 3 || rest[0] != ':' || rest[1] != '/' || rest[2] != '/' {
		return nil, false
	}
	return rest[3:], true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

var hostByte, pathByte = func() (host, path [256]bool) {
	for c := range 256 {
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		host[c] = alnum || c == '.' || c == '-'
		// RFC 3986 unreserved, sub-delims and the separators of path, query
		// and fragment; "%" is handled on its own.
		path[c] = alnum || c != 0 && c < 0x80 && indexByte("-._~!$&'()*+,;=:@/?#", byte(c))
	}
	return
}()

func indexByte(s string, c byte) bool {
	for i := range len(s) {
		if s[i] == c {
			return true
		}
	}
	return false
}
