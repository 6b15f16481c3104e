package extract

import (
	"net/url"
	"strings"
)

// LinkCanonical is the URL a Link response header names with
// rel="canonical" (RFC 8288; the way non-HTML and many HTML responses state
// their canonical URL), resolved against base; "" when there is none.
func LinkCanonical(values []string, base *url.URL) string {
	for _, v := range values {
		for _, link := range splitLinks(v) {
			target, params, ok := strings.Cut(link, ">")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				name, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(name), "rel") && relHas(strings.Trim(strings.TrimSpace(val), `"`), "canonical") {
					if u := resolveHTTP(base, target[1:]); u != "" {
						return u
					}
				}
			}
		}
	}
	return ""
}

// splitLinks cuts a Link header value into its links at the commas
// between them (a comma inside <…> or a quoted string belongs to it).
func splitLinks(v string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"' && depth == 0:
			quoted = !quoted
		case c == '<' && !quoted:
			depth++
		case c == '>' && !quoted && depth > 0:
			depth--
		case c == ',' && !quoted && depth == 0:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// relHas reports whether a rel attribute's space-separated tokens include
// token, case-insensitively.
func relHas(rel, token string) bool {
	for t := range strings.FieldsSeq(rel) {
		if strings.EqualFold(t, token) {
			return true
		}
	}
	return false
}

// resolveHTTP resolves ref against base, returning "" unless it is an
// absolute http(s) URL of sane length.
func resolveHTTP(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || len(ref) > MaxURLLength {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	out := u.String()
	if len(out) > MaxURLLength {
		return "" // escaping can make a short reference long
	}
	return out
}
