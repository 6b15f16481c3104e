package extract

import (
	"encoding/json"
	"strings"
)

// ldFacts is what the page's JSON-LD states about its article.
type ldFacts struct {
	author, published, modified, description, siteName string
	license, image, language, body                     string
	keywords                                           []string
}

// maxLDNodes bounds the objects looked at across all blocks.
const maxLDNodes = 256

// readJSONLD reads the article's facts from the page's JSON-LD blocks: the
// first object typed as an article (Article, NewsArticle, BlogPosting…),
// else the first typed as a web page; a member that is a reference
// ({"@id": …}) is followed to the object of that @id, as Yoast and Rank
// Math write their graphs. The @context is not checked: an object
// @context or none at all is as common as the string, and the types are
// schema.org's either way.
func readJSONLD(blocks []string) ldFacts {
	var nodes []map[string]any
	ids := map[string]map[string]any{}
	var firstPublished string
	add := func(m map[string]any) {
		if len(nodes) >= maxLDNodes {
			return
		}
		nodes = append(nodes, m)
		if id, ok := m["@id"].(string); ok && id != "" {
			if _, seen := ids[id]; !seen {
				ids[id] = m
			}
		}
	}
	for _, src := range blocks {
		src = strings.TrimSpace(src)
		src = strings.TrimSuffix(strings.TrimPrefix(src, "<![CDATA["), "]]>")
		var v any
		if json.Unmarshal([]byte(src), &v) != nil {
			continue
		}
		if firstPublished == "" {
			firstPublished = findKey(v, "datePublished", 0)
		}
		var tops []any
		if a, ok := v.([]any); ok {
			tops = a
		} else {
			tops = []any{v}
		}
		for _, t := range tops {
			m, ok := t.(map[string]any)
			if !ok {
				continue
			}
			add(m)
			if g, ok := m["@graph"].([]any); ok {
				for _, e := range g {
					if gm, ok := e.(map[string]any); ok {
						add(gm)
					}
				}
			}
			if me, ok := m["mainEntity"].(map[string]any); ok {
				add(me)
			}
		}
	}
	var main, page map[string]any
	for _, n := range nodes {
		switch kind(n) {
		case kindArticle:
			if main == nil {
				main = n
			}
		case kindPage:
			if page == nil {
				page = n
			}
		}
	}
	var f ldFacts
	for _, n := range []map[string]any{main, page} {
		if n == nil {
			continue
		}
		f.author = strOr(f.author, names(n["author"], ids, 0))
		f.published = strOr(f.published, str(n["datePublished"]))
		f.modified = strOr(f.modified, str(n["dateModified"]))
		f.description = strOr(f.description, str(n["description"]))
		f.siteName = strOr(f.siteName, names(n["publisher"], ids, 0))
		f.license = strOr(f.license, link(n["license"], ids, 0))
		f.image = strOr(f.image, link(n["image"], ids, 0))
		f.language = strOr(f.language, str(n["inLanguage"]))
		f.body = strOr(f.body, str(n["articleBody"]))
		if f.keywords == nil {
			f.keywords = keywords(n["keywords"])
		}
	}
	f.published = strOr(f.published, firstPublished)
	return f
}

const (
	kindOther = iota
	kindArticle
	kindPage
)

// kind classifies an object by its @type (a string or a list).
func kind(m map[string]any) int {
	var types []string
	switch t := m["@type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				types = append(types, s)
			}
		}
	}
	k := kindOther
	for _, t := range types {
		t = strings.TrimPrefix(strings.TrimPrefix(t, "http://schema.org/"), "https://schema.org/")
		switch {
		case strings.HasSuffix(t, "Article"), strings.HasSuffix(t, "Posting"), t == "Report", t == "Review", t == "Recipe", t == "HowTo":
			return kindArticle
		case strings.HasSuffix(t, "Page"):
			k = kindPage
		}
	}
	return k
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case []any:
		if len(x) > 0 {
			return str(x[0])
		}
	}
	return ""
}

// deref follows a {"@id": …} reference to the object it names.
func deref(m map[string]any, ids map[string]map[string]any) map[string]any {
	if id, ok := m["@id"].(string); ok && len(m) <= 2 {
		if full, ok := ids[id]; ok {
			return full
		}
	}
	return m
}

// names is the name of a person or organisation (a string, an object with
// a name, a reference, or a list of them), joined with ", ".
func names(v any, ids map[string]map[string]any, depth int) string {
	if depth > 4 {
		return ""
	}
	switch x := v.(type) {
	case string:
		s := clean(x)
		if strings.Contains(s, "://") {
			return "" // a profile URL, not a name
		}
		return s
	case map[string]any:
		return clean(str(deref(x, ids)["name"]))
	case []any:
		var out []string
		for _, e := range x {
			if s := names(e, ids, depth+1); s != "" && !contains(out, s) {
				out = append(out, s)
			}
		}
		return strings.Join(out, ", ")
	}
	return ""
}

// link is the URL of an image or licence: a string, or an object's url,
// contentUrl or @id; the first of a list.
func link(v any, ids map[string]map[string]any, depth int) string {
	if depth > 4 {
		return ""
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case map[string]any:
		m := deref(x, ids)
		return strOr(str(m["url"]), str(m["contentUrl"]), str(m["@id"]))
	case []any:
		if len(x) > 0 {
			return link(x[0], ids, depth+1)
		}
	}
	return ""
}

// keywords is a keywords value (a comma-separated string or a list).
func keywords(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = strings.Split(x, ",")
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
