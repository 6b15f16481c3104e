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
// body in a framework's state: Next.js's __NEXT_DATA__, Nuxt 3's
// __NUXT_DATA__ payload, or Nuxt 2's window.__NUXT__ when it is plain JSON.
// A body is a body-like member's string (rendered as text when it is HTML)
// or a Nuxt Content document tree. "" when none holds minShellText
// characters.
func shellText(ldBody string, f *facts) rendered {
	if len(ldBody) >= minShellText {
		return paragraphs(ldBody)
	}
	var best rendered
	for _, s := range []any{jsonState(f.nextData), nuxtPayload(f.nuxtData), jsonState(nuxt2State(f.nuxt2))} {
		if s == nil {
			continue
		}
		if t := stateBody(s); len(t.text) > len(best.text) {
			best = t
		}
	}
	if len(best.text) < minShellText {
		return rendered{}
	}
	return best
}

// jsonState is s decoded, nil when it is not JSON.
func jsonState(s string) any {
	if s == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return nil
	}
	return v
}

// nuxt2State is the JSON value assigned in Nuxt 2's
// "window.__NUXT__=…" script, "" when what follows the "=" is not plain
// JSON (Nuxt usually writes a function call there, which is never run).
func nuxt2State(script string) string {
	s := strings.TrimSpace(script)
	s, ok := strings.CutPrefix(s, "window.__NUXT__")
	if !ok {
		return ""
	}
	s = strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(s, "=") {
		return ""
	}
	s = strings.TrimLeft(s[1:], " \t\r\n")
	if !strings.HasPrefix(s, "{") {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return ""
	}
	return string(raw)
}

// nuxtPayload is Nuxt 3's payload resolved into plain values. The payload
// is devalue's flat form: a JSON array whose first element is the root,
// in which an object's members and an array's items are indexes into the
// array, a negative index is undefined or a special number, and an array
// opening with a string is a typed value (["Reactive", i], ["Date", "…"],
// ["Set", i…], ["Map", k, v…], ["null", key, i…]). Bounded by
// maxStateNodes and maxStateDepth; nil when s is not such an array.
func nuxtPayload(s string) any {
	if s == "" {
		return nil
	}
	var flat []any
	if json.Unmarshal([]byte(s), &flat) != nil || len(flat) == 0 {
		return nil
	}
	seen := 0
	var resolve func(i any, depth int) any
	resolve = func(i any, depth int) any {
		f, ok := i.(float64)
		if !ok || f < 0 || int(f) >= len(flat) || float64(int(f)) != f {
			return nil
		}
		seen++
		if seen > maxStateNodes || depth > maxStateDepth {
			return nil
		}
		switch v := flat[int(f)].(type) {
		case map[string]any:
			m := make(map[string]any, len(v))
			for k, e := range v {
				m[k] = resolve(e, depth+1)
			}
			return m
		case []any:
			if len(v) == 0 {
				return []any{}
			}
			tag, typed := v[0].(string)
			if !typed {
				out := make([]any, 0, len(v))
				for _, e := range v {
					out = append(out, resolve(e, depth+1))
				}
				return out
			}
			switch tag {
			case "Reactive", "ShallowReactive", "Ref", "ShallowRef", "Object", "NuxtError":
				if len(v) > 1 {
					return resolve(v[1], depth+1)
				}
			case "Set", "Map":
				out := make([]any, 0, len(v)-1)
				for _, e := range v[1:] {
					out = append(out, resolve(e, depth+1))
				}
				return out
			case "null":
				m := map[string]any{}
				for k := 1; k+1 < len(v); k += 2 {
					if key, ok := v[k].(string); ok {
						m[key] = resolve(v[k+1], depth+1)
					}
				}
				return m
			}
			return nil // Date, RegExp, BigInt and the like: no text
		default:
			return v // a string, number, boolean or null, stored as itself
		}
	}
	return resolve(0.0, 0)
}

// stateBody is the longest article body in a framework's state: the
// longest string under a body-like member, rendered as text when it is
// HTML, or the text of a Nuxt Content document tree under one.
func stateBody(v any) rendered {
	best, seen := "", 0
	var tree any
	treeLen := 0
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
			if stateKeys[key] && contentTree(x) {
				if n := treeSize(x, 0); n > treeLen {
					tree, treeLen = x, n
				}
				return
			}
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
	var text rendered
	if len(best) >= minShellText {
		text = htmlOrText(best)
	}
	if tree != nil && treeLen > len(text.text) {
		var t textBuilder
		renderTree(&t, tree, 0)
		if r := t.rendered(); len(r.text) > len(text.text) {
			text = r
		}
	}
	return text
}

// htmlOrText is s as text: rendered block by block when it is HTML, else
// its lines as paragraphs.
func htmlOrText(s string) rendered {
	if strings.Contains(s, "</") || strings.Contains(s, "<p") {
		doc, err := html.Parse(strings.NewReader(s))
		if err != nil {
			return rendered{}
		}
		r, _ := renderText(doc, pruned)
		return r
	}
	return paragraphs(s)
}

// contentTree reports whether m is the root of a Nuxt Content document:
// {"type": "root", "children": […]} (v2, a HAST-like tree) or
// {"type": "minimark", "value": […]} (v3, nodes as [tag, props, children…]).
func contentTree(m map[string]any) bool {
	switch m["type"] {
	case "root":
		_, ok := m["children"].([]any)
		return ok
	case "minimark":
		_, ok := m["value"].([]any)
		return ok
	}
	return false
}

// treeSize is the bytes of text in a document tree, bounded by depth.
func treeSize(v any, depth int) int {
	if depth > maxStateDepth {
		return 0
	}
	n := 0
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		if s, ok := x["value"].(string); ok && x["type"] == "text" {
			return len(s)
		}
		for _, k := range []string{"children", "value"} {
			if c, ok := x[k].([]any); ok {
				n += treeSize(c, depth+1)
			}
		}
	case []any:
		start := 0
		if len(x) >= 2 { // a minimark element: [tag, props, children…]
			if _, ok := x[0].(string); ok {
				if _, ok := x[1].(map[string]any); ok {
					start = 2
				}
			}
		}
		for _, e := range x[start:] {
			n += treeSize(e, depth+1)
		}
	}
	return n
}

// renderTree writes a Nuxt Content document tree as text, each block
// element (by blockTags) a block; code, styles and scripts left out.
func renderTree(t *textBuilder, v any, depth int) {
	if depth > maxStateDepth {
		return
	}
	element := func(tag string, children []any) {
		if silentTags[tag] {
			return
		}
		if tag == "br" {
			t.lineBreak()
			return
		}
		block := blockTags[tag]
		if block {
			t.end()
			t.open(tag, nil)
		}
		for _, c := range children {
			renderTree(t, c, depth+1)
		}
		if block {
			t.end()
			t.close(tag)
		}
	}
	switch x := v.(type) {
	case string:
		t.text(x)
	case map[string]any:
		switch x["type"] {
		case "text":
			if s, ok := x["value"].(string); ok {
				t.text(s)
			}
		case "root":
			c, _ := x["children"].([]any)
			element("div", c)
		case "minimark":
			c, _ := x["value"].([]any)
			element("div", c)
		case "element":
			tag, _ := x["tag"].(string)
			c, _ := x["children"].([]any)
			element(strings.ToLower(tag), c)
		}
	case []any:
		if len(x) >= 2 {
			if tag, ok := x[0].(string); ok {
				if _, ok := x[1].(map[string]any); ok {
					element(strings.ToLower(tag), x[2:])
					return
				}
			}
		}
		for _, e := range x {
			renderTree(t, e, depth+1)
		}
	}
}

// paragraphs is plain text with its paragraphs (lines) as blocks.
func paragraphs(s string) rendered {
	var t textBuilder
	for line := range strings.Lines(s) {
		t.text(line)
		t.end()
	}
	return t.rendered()
}
