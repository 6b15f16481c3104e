package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// metaRobots reads every <meta name="robots"> and <meta name=agent> in doc.
// Tags are looked for in the whole document, not only <head>: CMS plugins
// put them in the body, and the parser keeps them where they stand.
func metaRobots(doc *html.Node, agent string) (noindex, nofollow bool) {
	elements(doc, func(n *html.Node) bool {
		if n.Data != "meta" {
			return true
		}
		name := strings.TrimSpace(attr(n, "name"))
		if !strings.EqualFold(name, "robots") && (agent == "" || !strings.EqualFold(name, agent)) {
			return false
		}
		i, f := directives(attr(n, "content"))
		noindex, nofollow = noindex || i, nofollow || f
		return false
	})
	return noindex, nofollow
}

// directives reads a robots content value. Tokens are split on commas and
// white space alike, so "noindex nofollow" counts as both.
func directives(content string) (noindex, nofollow bool) {
	for _, tok := range strings.FieldsFunc(content, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	}) {
		switch strings.ToLower(tok) {
		case "noindex":
			noindex = true
		case "nofollow":
			nofollow = true
		case "none":
			noindex, nofollow = true, true
		}
	}
	return noindex, nofollow
}
