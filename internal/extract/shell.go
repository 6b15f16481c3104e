package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// Thresholds of the shell rule, in characters of visible text with white
// space runs counted once (the package doc gives the rule).
const (
	ShellMaxText = 200 // a page with more is rendered, whatever its scripts
	MountMaxText = 24  // an app mount point holding less is empty ("Loading…")
	BareMaxText  = 32  // with scripts but no mount point, the page must be next to empty
)

// mountIDs are the ids frameworks mount into: Create React App and Vite
// (root, app), Next.js, Nuxt, Gatsby, SvelteKit templates and others.
var mountIDs = map[string]bool{
	"root": true, "app": true, "__next": true, "__nuxt": true, "___gatsby": true,
	"svelte": true, "react-root": true,
}

// hiddenTags hold no text a reader sees.
var hiddenTags = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true, "head": true}

// isMount reports whether n is an app's mount point: an id of mountIDs, an
// attribute AngularJS, Angular or React marks it with, or <app-root>.
func isMount(n *html.Node) bool {
	if n.Data == "app-root" {
		return true
	}
	// One pass over the attributes: this runs on every element of the page.
	idSeen := false
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		switch a.Key {
		case "ng-app", "ng-view", "ui-view", "data-reactroot":
			// The element AngularJS, Angular or React renders into.
			return true
		case "id":
			if !idSeen {
				idSeen = true
				if mountIDs[a.Val] {
					return true
				}
			}
		}
	}
	return false
}

// executable reports whether a <script> runs: it has a src, is a module, or
// is inline JavaScript. Data blocks (JSON, JSON-LD, templates) do not run.
func executable(n *html.Node) bool {
	t := strings.ToLower(strings.TrimSpace(attr(n, "type")))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch t {
	case "", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript", "text/jsx", "text/babel":
	default:
		return false
	}
	if hasAttr(n, "src") {
		return true
	}
	return n.FirstChild != nil && strings.TrimSpace(n.FirstChild.Data) != ""
}

// visibleText counts the characters of text under n outside hiddenTags,
// white space runs counted as one, stopping once it reaches limit.
func visibleText(n *html.Node, limit int) int {
	count := 0
	space := true // leading white space is not counted
	stack := []*html.Node{n}
	for len(stack) > 0 && count < limit {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch c.Type {
		case html.TextNode:
			for _, r := range c.Data {
				if isSpace(r) {
					if !space {
						count++
						space = true
					}
					continue
				}
				count++
				space = false
				if count >= limit {
					break
				}
			}
			continue
		case html.ElementNode:
			if hiddenTags[c.Data] {
				continue
			}
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return count
}
