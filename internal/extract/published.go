package extract

import (
	"strings"
	"time"

	"golang.org/x/net/html"

	"corpus.blog/corpusbot/internal/dates"
)

// maxJSONLD bounds the JSON-LD blocks decoded, and the depth walked in each,
// so that a page of generated metadata cannot make Parse slow.
const (
	maxJSONLD      = 16
	maxJSONLDDepth = 32
)

// insideArticle reports whether n has an <article> ancestor.
func insideArticle(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == "article" {
			return true
		}
	}
	return false
}

// firstTime is the first readable <time datetime> under n.
func firstTime(n *html.Node) time.Time {
	var t time.Time
	elements(n, func(c *html.Node) bool {
		if !t.IsZero() {
			return false
		}
		if c.Data == "time" {
			if d, ok := readDate(attr(c, "datetime")); ok {
				t = d
			}
		}
		return true
	})
	return t
}

func findKey(v any, key string, depth int) string {
	if depth > maxJSONLDDepth {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x[key].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
		// Map order is random; look in the members that hold objects in a
		// fixed order so the answer does not vary from run to run.
		for _, k := range []string{"@graph", "mainEntity", "mainEntityOfPage", "itemListElement"} {
			if s := findKey(x[k], key, depth+1); s != "" {
				return s
			}
		}
	case []any:
		for _, e := range x {
			if s := findKey(e, key, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}

func readDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}, false
	}
	return dates.Parse(s)
}

// strOr is the first of ss that is not empty.
func strOr(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
