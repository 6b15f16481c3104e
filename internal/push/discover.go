package push

import (
	"net/url"
	"strings"
)

// Discover finds where to subscribe to a feed (§4): the hub and the topic
// (the feed's self URL). The HTTP Link header (RFC 8288) is the
// publisher's first means and wins; the feed's own links (Atom or RSS
// atom:link rel="hub" / rel="self", JSON Feed hubs) are next; with no
// self link the URL the feed was fetched from is the topic. Only http(s)
// hubs are taken. hub is "" when none is declared.
func Discover(linkHeaders []string, feedHub, feedSelf, fetchedURL string) (hub, topic string) {
	links := ParseLinks(linkHeaders)
	hub = resolve(fetchedURL, first(links["hub"], feedHub))
	topic = resolve(fetchedURL, first(links["self"], feedSelf, fetchedURL))
	if !httpURL(hub) || !httpURL(topic) {
		return "", ""
	}
	return hub, topic
}

func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// resolve makes a Link header's relative target absolute (RFC 8288 §3.1).
func resolve(base, ref string) string {
	if ref == "" {
		return ""
	}
	b, err := url.Parse(base)
	r, err2 := url.Parse(ref)
	if err != nil || err2 != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

func httpURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// ParseLinks reads Link header values (RFC 8288 §3) into the first target
// URI of each relation type, lowercased: <https://hub.example/>; rel="hub".
// A rel may name several types ("hub self"). Malformed links are skipped.
func ParseLinks(values []string) map[string]string {
	out := map[string]string{}
	for _, v := range values {
		for len(v) > 0 {
			v = strings.TrimLeft(v, " \t,")
			if !strings.HasPrefix(v, "<") {
				// Not a link: skip to the next comma outside quotes.
				v = skipPast(v)
				continue
			}
			end := strings.IndexByte(v, '>')
			if end < 0 {
				break
			}
			target := v[1:end]
			v = v[end+1:]
			params, rest := linkParams(v)
			v = rest
			for _, rel := range strings.Fields(strings.ToLower(params["rel"])) {
				if _, ok := out[rel]; !ok {
					out[rel] = target
				}
			}
		}
	}
	return out
}

// linkParams reads ;name=value parameters up to the comma ending one link.
func linkParams(s string) (map[string]string, string) {
	params := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ";") {
			return params, skipPast(s)
		}
		s = strings.TrimLeft(s[1:], " \t")
		i := strings.IndexAny(s, "=;,")
		if i < 0 {
			return params, ""
		}
		name := strings.ToLower(strings.TrimSpace(s[:i]))
		if s[i] != '=' {
			s = s[i:]
			continue
		}
		s = strings.TrimLeft(s[i+1:], " \t")
		var val string
		if strings.HasPrefix(s, `"`) {
			j := 1
			var b strings.Builder
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			val, s = b.String(), s[min(j+1, len(s)):]
		} else {
			j := strings.IndexAny(s, ";,")
			if j < 0 {
				j = len(s)
			}
			val, s = strings.TrimSpace(s[:j]), s[j:]
		}
		if _, dup := params[name]; !dup { // RFC 8288: only the first rel counts
			params[name] = val
		}
	}
}

// skipPast drops s up to and including the next comma outside quotes.
func skipPast(s string) string {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				return s[i+1:]
			}
		}
	}
	return ""
}
