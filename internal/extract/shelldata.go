package extract

import (
	"encoding/json"
	"strings"

	"golang.org/x/net/html"
)

// Bounds on reading a framework's embedded state.
const (
	maxStateNodes = 20000 // JSON values looked at
	maxStateDepth = 48
	minShellText  = ShellMaxText // the least text that makes a shell page a page
)

// stateKeys are the members of a framework's page state that hold an
// article's body, as the common headless CMSs name them.
var stateKeys = map[string]bool{
	"articleBody": true, "body": true, "content": true, "html": true, "contentHtml": true,
	"bodyHtml": true, "content_html": true, "body_html": true, "text": true, "markdown": true,
}

// shellText is the article a shell page carries in its own data, read with
// no script run and nothing fetched: JSON-LD articleBody, else the longest
// body-like string in Next.js's __NEXT_DATA__ (rendered as text when it is
// HTML). "" when neither holds minShellText characters.
func shellText(ldBody, nextData string) string {
	if len(ldBody) >= minShellText {
		return paragraphs(ldBody)
	}
	if nextData == "" {
		return ""
	}
	var v any
	if json.Unmarshal([]byte(nextData), &v) != nil {
		return ""
	}
	best, seen := "", 0
	var walk func(v any, key string, depth int)
	walk = func(v any, key string, depth int) {
		seen++
		if seen > maxStateNodes || depth > maxStateDepth {
			return
		}
		switch x := v.(type) {
		case string:
			if stateKeys[key] && (len(x) > len(best) || len(x) == len(best) && x < best) {
				best = x
			}
		case map[string]any:
			for k, e := range x {
				walk(e, k, depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, key, depth+1)
			}
		}
	}
	walk(v, "", 0)
	if len(best) < minShellText {
		return ""
	}
	if strings.Contains(best, "</") || strings.Contains(best, "<p") {
		doc, err := html.Parse(strings.NewReader(best))
		if err != nil {
			return ""
		}
		text, _ := renderText(doc, pruned)
		return text
	}
	return paragraphs(best)
}

// paragraphs is plain text with its paragraphs (lines) as blocks.
func paragraphs(s string) string {
	var t textBuilder
	for line := range strings.Lines(s) {
		t.text(line)
		t.end()
	}
	return t.String()
}
