// Package entryurl is the one rule for which URL a feed entry gives as its
// post's page. The feed parser (package feed) and the sitemap reader, which
// reads feeds as sitemaps too (package sitemap), both apply it, so that one
// post has one URL whichever of them reads it.
//
// The rule:
//   - Atom (RFC 4287 §4.2.7.2): the entry's rel="alternate" links, a link
//     without rel being one; among them the first whose type is text/html,
//     application/xhtml+xml or absent wins, else the first of another type;
//     with no alternate link, an <id> that is a permalink (IsPermalink).
//   - RSS: the item's <link>, else a <guid> that is a permalink (not
//     isPermaLink="false", and IsPermalink), else an atom:link alternate
//     chosen as above, else an RSS 1.0 rdf:about that is a permalink.
//
// A candidate counts only when Usable. The package does no I/O and resolves
// nothing: callers give hrefs already resolved against the xml:base in force
// where they stood, each reader with its own XML decoder.
package entryurl

import "strings"

// Usable reports whether u can be an entry's URL: not empty, and either
// relative (a caller with no base keeps it as written) or an http(s) URL.
// A mailto:, javascript: or tag: URI names no page.
func Usable(u string) bool {
	u = strings.TrimSpace(u)
	if u == "" {
		return false
	}
	scheme, _, ok := strings.Cut(u, ":")
	if !ok || !isScheme(scheme) {
		return true // relative: "post/1", "/post/1", "?p=1"
	}
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// isScheme reports whether s has the syntax of a URI scheme (RFC 3986 §3.1),
// so that a relative path with a colon after a slash is not taken for one.
func isScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// IsPermalink reports whether an identifier (an RSS guid, an Atom id, a JSON
// Feed id, an rdf:about) can stand in for a missing link: an absolute http(s)
// URL, or a path from the site's root. A bare "1234" or a tag: URI is an
// identifier only.
func IsPermalink(id string) bool {
	id = strings.TrimSpace(id)
	return hasPrefixFold(id, "http://") || hasPrefixFold(id, "https://") ||
		(strings.HasPrefix(id, "/") && !strings.HasPrefix(id, "//"))
}

// RelIs reports whether an Atom rel value names want. A missing rel is
// "alternate" (RFC 4287 §4.2.7.2), and the IANA registry's full IRIs name the
// same relations as the short forms.
func RelIs(rel, want string) bool {
	rel = strings.TrimSpace(rel)
	if rel == "" {
		return strings.EqualFold(want, "alternate")
	}
	rel = strings.TrimPrefix(rel, "http://www.iana.org/assignments/relation/")
	return strings.EqualFold(rel, want)
}

// MediaType is a type attribute without parameters, lower-cased.
func MediaType(s string) string {
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// How well an alternate link fits as the page of a post.
const (
	rankNone  = iota
	rankOther // an alternate of another type (a PDF, an audio file)
	rankPage  // text/html, application/xhtml+xml or no type: a web page
)

// Alternate chooses among the Atom links of one entry (or feed) as they come,
// in document order. The zero value has chosen nothing.
type Alternate struct {
	href string
	rank int
}

// Rank is how a link with this rel and type would rank, or 0 when it would
// not replace the link chosen so far (it is not an alternate, or it is no
// better). A reader that resolves hrefs only when needed asks Rank first and
// then calls Take.
func (a *Alternate) Rank(rel, typ string) int {
	if !RelIs(rel, "alternate") {
		return rankNone
	}
	r := rankOther
	switch MediaType(typ) {
	case "", "text/html", "application/xhtml+xml":
		r = rankPage
	}
	if r <= a.rank {
		return rankNone
	}
	return r
}

// Take makes href, of the rank Rank gave, the choice, unless it is not Usable.
func (a *Alternate) Take(href string, rank int) {
	if rank > a.rank && Usable(href) {
		a.href, a.rank = strings.TrimSpace(href), rank
	}
}

// Offer considers one link: its rel, type and resolved href.
func (a *Alternate) Offer(rel, typ, href string) {
	if r := a.Rank(rel, typ); r != rankNone {
		a.Take(href, r)
	}
}

// Href is the chosen link, "" when none was.
func (a *Alternate) Href() string { return a.href }

// Atom is what an Atom entry says of its page.
type Atom struct {
	Alternate Alternate // the entry's links, offered in order
	ID        string    // <id> when it is a permalink, resolved (see Permalink); else ""
}

// URL applies the rule to an Atom entry.
func (e Atom) URL() string { return first(e.Alternate.Href(), e.ID) }

// RSS is what an RSS item says of its page, each href resolved.
type RSS struct {
	Link      string    // <link> text
	GUID      string    // <guid> when a permalink and not isPermaLink="false", resolved (see Permalink); else ""
	Alternate Alternate // atom:link elements, offered in order
	About     string    // RSS 1.0 rdf:about when a permalink (see Permalink); else ""
}

// URL applies the rule to an RSS item.
func (it RSS) URL() string { return first(it.Link, it.GUID, it.Alternate.Href(), it.About) }

// Permalink is id resolved by resolve when IsPermalink(id), else "": an
// identifier is resolved only once it is known to be a link, since "1234"
// resolved against a feed's URL would look like one.
func Permalink(id string, resolve func(string) string) string {
	if !IsPermalink(id) {
		return ""
	}
	return resolve(strings.TrimSpace(id))
}

// first is the first Usable candidate, trimmed.
func first(candidates ...string) string {
	for _, c := range candidates {
		if Usable(c) {
			return strings.TrimSpace(c)
		}
	}
	return ""
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}
