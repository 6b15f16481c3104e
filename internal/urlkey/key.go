package urlkey

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"corpus.blog/corpusbot/robots"
)

// ErrNotHTTP is wrapped by the errors for URLs that are not absolute http or
// https URLs with a host.
var ErrNotHTTP = errors.New("not an absolute http(s) URL with a host")

// Key returns the key of an absolute http or https URL, as the package
// documentation describes. Key(Key(u)) == Key(u). It fails for URLs that do
// not parse, other schemes, URLs without a host, hosts that are not valid
// names or addresses, and ports past 65535.
func Key(raw string) (string, error) {
	raw = strings.Trim(raw, " \t\n\r\f")
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("urlkey: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("urlkey: %q: %w", raw, ErrNotHTTP)
	}
	// url.Parse takes "http:x" as opaque and "http:///x" as hostless.
	colon := len(u.Scheme)
	if u.Opaque != "" || u.Host == "" || !strings.HasPrefix(raw[colon:], "://") {
		return "", fmt.Errorf("urlkey: %q: %w", raw, ErrNotHTTP)
	}
	host, err := keyHost(u)
	if err != nil {
		return "", fmt.Errorf("urlkey: %q: %w", raw, err)
	}
	port, err := keyPort(u)
	if err != nil {
		return "", fmt.Errorf("urlkey: %q: %w", raw, err)
	}

	// The path and query are taken from raw as written: u.Path has decoded
	// %2F into "/", and u.EscapedPath re-encodes when the raw form is odd.
	// url.Parse cuts the fragment at the first "#" and the query at the
	// first "?" before it looks for the path, so the same cuts here give
	// the same parts.
	rest, _, _ := strings.Cut(raw[colon+3:], "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	path := ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		path = rest[i:]
	}

	b := make([]byte, 0, len(raw)+8)
	b = append(b, u.Scheme...)
	b = append(b, "://"...)
	b = append(b, host...)
	if port != "" {
		b = append(b, ':')
		b = append(b, port...)
	}
	pathStart := len(b)
	if path == "" {
		b = append(b, '/')
	} else {
		b = robots.AppendNormalizedURI(b, path)
		b = append(b[:pathStart], removeDotSegments(string(b[pathStart:]))...)
	}
	if hasQuery {
		b = appendQuery(b, query)
	}
	return string(b), nil
}

// keyHost is the host of u in lowercase ASCII: an IPv6 literal in brackets,
// otherwise the name as fetch's hostOnly writes it (IDNA lookup form, no
// final dot), so that a key belongs to the site its URL belongs to. (IPv6
// literals are not rewritten in their RFC 5952 form, for the same reason.) A name IDNA refuses is kept lowercased when it
// is made of the characters RFC 3986 allows raw in a host (underscores are
// common in real host names and fail IDNA's STD3 rules).
func keyHost(u *url.URL) (string, error) {
	h := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		addr, err := netip.ParseAddr(h)
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			// Zones are refused as browsers refuse them: they name an
			// interface of the machine that reads the URL.
			return "", fmt.Errorf("invalid IPv6 literal %q", h)
		}
		return "[" + strings.ToLower(h) + "]", nil
	}
	h = strings.TrimSuffix(h, ".")
	// For an ASCII name without punycode labels, IDNA lookup only
	// lowercases, or fails where the checks below decide; the common case
	// skips it. What IDNA gives is checked too: it lets odd punycode through.
	if !isPlainASCII(h) {
		if a, err := idna.Lookup.ToASCII(h); err == nil {
			h = a
		}
	}
	if h == "" {
		return "", fmt.Errorf("empty host: %w", ErrNotHTTP)
	}
	if h[0] == '.' || h[len(h)-1] == '.' || strings.Contains(h, "..") {
		return "", fmt.Errorf("empty label in host %q", h)
	}
	for i := 0; i < len(h); i++ {
		if !isRegNameByte(h[i]) {
			return "", fmt.Errorf("invalid host %q", h)
		}
	}
	return strings.ToLower(h), nil
}

// isPlainASCII reports whether a host name is ASCII and has no "xn--"
// (punycode) label, which IDNA lookup would decode and check.
func isPlainASCII(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return false
		}
	}
	return !strings.Contains(strings.ToLower(h), "xn--")
}

// isRegNameByte reports the octets RFC 3986 §3.2.2 allows raw in a host name:
// unreserved characters and sub-delimiters.
func isRegNameByte(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=", c) >= 0
}

// keyPort is u's port without leading zeros, or "" when it is absent or the
// scheme's default.
func keyPort(u *url.URL) (string, error) {
	p := u.Port()
	if p == "" {
		return "", nil
	}
	n, err := strconv.ParseUint(p, 10, 32)
	if err != nil || n > 65535 {
		return "", fmt.Errorf("invalid port %q", p)
	}
	if u.Scheme == "http" && n == 80 || u.Scheme == "https" && n == 443 {
		return "", nil
	}
	return strconv.FormatUint(n, 10), nil
}

// removeDotSegments is RFC 3986 §5.2.4 for a path that starts with "/".
func removeDotSegments(path string) string {
	if !strings.Contains(path, "/.") {
		return path
	}
	segments := strings.Split(path[1:], "/")
	out := segments[:0]
	for i, seg := range segments {
		last := i == len(segments)-1
		switch seg {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
			continue
		}
		if last {
			// "/a/." and "/a/b/.." name the directory: "/a/".
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}

// appendQuery appends "?" and the normalised query without its tracking
// and empty parameters, or nothing when none is left.
func appendQuery(b []byte, query string) []byte {
	if query == "" {
		return b
	}
	mark := len(b)
	b = append(b, '?')
	start := len(b)
	b = robots.AppendNormalizedURI(b, query)
	// The parameters are filtered in place: each kept one is copied left,
	// over what was read already.
	end, w := len(b), start
	for r := start; r <= end; {
		next := r + bytes.IndexByte(b[r:end], '&')
		if next < r {
			next = end
		}
		param := b[r:next]
		name := param
		if i := bytes.IndexByte(param, '='); i >= 0 {
			name = param[:i]
		}
		if len(param) > 0 && !IsTrackingParameter(string(name)) {
			if w > start {
				b[w] = '&'
				w++
			}
			w += copy(b[w:], param)
		}
		r = next + 1
	}
	if w == start {
		return b[:mark]
	}
	return b[:w]
}
