package urlkey

import "strings"

// Variation is a set of the ways two keys of one page commonly differ, which
// Key leaves apart because only the site can say they are the same page.
type Variation uint8

const (
	// Scheme: http and https.
	Scheme Variation = 1 << iota
	// WWW: the host with and without a leading "www.".
	WWW
	// TrailingSlash: the path with and without a final "/" ("/a" and "/a/").
	TrailingSlash
)

func (v Variation) String() string {
	if v == 0 {
		return "none"
	}
	var parts []string
	if v&Scheme != 0 {
		parts = append(parts, "scheme")
	}
	if v&WWW != 0 {
		parts = append(parts, "www")
	}
	if v&TrailingSlash != 0 {
		parts = append(parts, "trailing-slash")
	}
	return strings.Join(parts, "+")
}

// keyParts are the pieces of a key.
type keyParts struct {
	scheme string
	host   string // with the port, if any
	path   string // starts with "/"
	query  string // with its "?", or ""
}

// split cuts a key into its parts; ok is false for a string that is not
// shaped like a key.
func split(key string) (p keyParts, ok bool) {
	scheme, rest, found := strings.Cut(key, "://")
	if !found || scheme != "http" && scheme != "https" {
		return p, false
	}
	p.scheme = scheme
	i := strings.IndexAny(rest, "/?")
	if i < 0 || rest[i] != '/' {
		return p, false
	}
	p.host, rest = rest[:i], rest[i:]
	if j := strings.IndexByte(rest, '?'); j >= 0 {
		p.path, p.query = rest[:j], rest[j:]
	} else {
		p.path = rest
	}
	return p, p.host != ""
}

// bareHost is host without a leading "www." when what remains is still a
// dotted name ("www.com" keeps its "www.").
func bareHost(host string) (bare string, www bool) {
	if rest, ok := strings.CutPrefix(host, "www."); ok && strings.Contains(rest, ".") {
		return rest, true
	}
	return host, false
}

// barePath is path without a final "/", except for "/" itself.
func barePath(path string) (bare string, slash bool) {
	if len(path) > 1 && path[len(path)-1] == '/' {
		return path[:len(path)-1], true
	}
	return path, false
}

// VariantClass is what key has in common with every key that differs from it
// only by a Variation: its host without "www.", its path without a trailing
// slash and its query, without the scheme. Keys with one class are candidates
// for one page; a store can index them by it to find the record a redirect or
// canonical link says a new URL belongs to. A string that is not a key is its
// own class.
func VariantClass(key string) string {
	p, ok := split(key)
	if !ok {
		return key
	}
	host, _ := bareHost(p.host)
	path, _ := barePath(p.path)
	return host + path + p.query
}

// Variants reports whether keys a and b differ only by the ways in a
// Variation, and by which: a redirect or canonical link from one to the
// other shows that the site folds those. Equal keys are variants that differ
// by nothing; keys of other hosts, paths or queries are not variants.
func Variants(a, b string) (Variation, bool) {
	pa, okA := split(a)
	pb, okB := split(b)
	if !okA || !okB {
		return 0, a == b
	}
	hostA, wwwA := bareHost(pa.host)
	hostB, wwwB := bareHost(pb.host)
	pathA, slashA := barePath(pa.path)
	pathB, slashB := barePath(pb.path)
	if hostA != hostB || pathA != pathB || pa.query != pb.query {
		return 0, false
	}
	var v Variation
	if pa.scheme != pb.scheme {
		v |= Scheme
	}
	if wwwA != wwwB {
		v |= WWW
	}
	if slashA != slashB {
		v |= TrailingSlash
	}
	return v, true
}

// Respell gives key the spelling like has in the ways v names, so that a
// rule a site showed once (its feed's http://example.org/feed redirecting to
// https://www.example.org/feed shows Scheme|WWW) can be applied to its other
// URLs. Scheme and WWW are taken from like only when both are on the same
// host and port but for "www.". TrailingSlash adds a final "/" when like has one and
// the last segment of key's path names no file (has no "."), and removes it
// when like has none; a like whose path is "/" says nothing about slashes.
// key is returned unchanged when it is not a key.
func Respell(key string, v Variation, like string) string {
	p, okP := split(key)
	l, okL := split(like)
	if !okP || !okL {
		return key
	}
	hostP, _ := bareHost(p.host)
	hostL, wwwL := bareHost(l.host)
	if hostP == hostL {
		if v&Scheme != 0 {
			p.scheme = l.scheme
		}
		if v&WWW != 0 {
			p.host = hostP
			if wwwL {
				p.host = "www." + hostP
			}
		}
	}
	if v&TrailingSlash != 0 && l.path != "/" {
		path, slash := barePath(p.path)
		_, want := barePath(l.path)
		switch {
		case slash && !want:
			p.path = path
		case !slash && want && path != "/" && !strings.Contains(path[strings.LastIndexByte(path, '/'):], "."):
			p.path = path + "/"
		}
	}
	// Key again, so that what comes out is a key whatever came in.
	out, err := Key(p.scheme + "://" + p.host + p.path + p.query)
	if err != nil {
		return key
	}
	return out
}
