package robots

import (
	"strconv"
	"strings"
)

// String writes the file back in a canonical form: one group per group of the
// original, agents as their product tokens, patterns in their normalised
// spelling, and the sitemaps at the end. Parsing the result gives a file that
// decides every URL the same way, which the fuzz test holds it to; operators
// can diff it to see what the parser understood.
func (f *File) String() string {
	var b strings.Builder
	for _, g := range f.groups {
		if !g.wildcard && !hasToken(g.agents) {
			continue // names no crawler: it can never apply
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if g.wildcard {
			b.WriteString("User-agent: *\n")
		}
		for _, a := range g.agents {
			if a != "" {
				b.WriteString("User-agent: " + a + "\n")
			}
		}
		if g.hasDelay {
			b.WriteString("Crawl-delay: " + strconv.FormatFloat(g.delay.Seconds(), 'f', -1, 64) + "\n")
		}
		for _, r := range g.rules {
			if r.alias {
				continue // re-created from its Allow line on parsing
			}
			kind := KindDisallow
			if r.allow {
				kind = KindAllow
			}
			b.WriteString(kind.String() + ": " + string(r.pattern))
			if r.anchored {
				b.WriteByte('$')
			}
			b.WriteByte('\n')
		}
		if len(g.rules) == 0 {
			// An empty Disallow keeps the group a group of its own: without a
			// rule line, the next group's user-agent lines would join it.
			b.WriteString("Disallow:\n")
		}
	}
	if len(f.sitemaps) > 0 && b.Len() > 0 {
		b.WriteByte('\n')
	}
	for _, s := range f.sitemaps {
		b.WriteString("Sitemap: " + s + "\n")
	}
	return b.String()
}

func hasToken(agents []string) bool {
	for _, a := range agents {
		if a != "" {
			return true
		}
	}
	return false
}
