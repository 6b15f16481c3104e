package extract

import (
	"encoding/json"
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

// publishedBefore finds the publication date in the page as served, by the
// order of the package doc, up to (not including) the extracted article.
func publishedBefore(doc *html.Node) time.Time {
	var meta, ld, itemprop, marked, inArticle string
	blocks := 0
	elements(doc, func(c *html.Node) bool {
		switch {
		case c.Data == "meta" && meta == "" && isPublishedMeta(c):
			meta = attr(c, "content")
		case c.Data == "script" && ld == "" && blocks < maxJSONLD &&
			strings.EqualFold(strings.TrimSpace(attr(c, "type")), "application/ld+json"):
			blocks++
			ld = jsonLDPublished(c)
		}
		if itemprop == "" && strings.EqualFold(attr(c, "itemprop"), "datePublished") {
			itemprop = strOr(attr(c, "content"), attr(c, "datetime"))
		}
		if c.Data == "time" {
			dt := attr(c, "datetime")
			if marked == "" && (hasAttr(c, "pubdate") || hasClass(c, "published", "entry-date")) {
				marked = dt
			}
			if inArticle == "" && insideArticle(c) {
				inArticle = dt
			}
		}
		return true
	})
	for _, s := range []string{meta, ld, itemprop, marked, inArticle} {
		if t, ok := readDate(s); ok {
			return t
		}
	}
	return time.Time{}
}

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

func isPublishedMeta(n *html.Node) bool {
	for _, k := range []string{"property", "name"} {
		if strings.EqualFold(strings.TrimSpace(attr(n, k)), "article:published_time") {
			return true
		}
	}
	return false
}

// jsonLDPublished is the first datePublished string in a JSON-LD block, in
// any object of it (Yoast and Rank Math put the article in an @graph).
func jsonLDPublished(script *html.Node) string {
	if script.FirstChild == nil {
		return ""
	}
	src := strings.TrimSpace(script.FirstChild.Data)
	src = strings.TrimSuffix(strings.TrimPrefix(src, "<![CDATA["), "]]>")
	var v any
	if json.Unmarshal([]byte(src), &v) != nil {
		return ""
	}
	return findKey(v, "datePublished", 0)
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

func strOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
