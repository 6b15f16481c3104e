package robots

import (
	"bytes"
	"cmp"
	"slices"
	"time"
)

// rule is one Allow or Disallow line, its pattern normalised for matching.
type rule struct {
	allow    bool
	line     int
	written  string   // the value as the file wrote it, for reporting
	pattern  []byte   // normalised, without a final "$"
	anchored bool     // the pattern ended in "$"
	segments [][]byte // pattern split at "*"; nil when it has no wildcard
	length   int      // specificity: octets of the normalised pattern, "*" and "$" included
	alias    bool     // the directory alias of an "Allow: …/index.html" rule
}

func newRule(d Directive, arena []byte) (rule, []byte) {
	start := len(arena)
	if d.Value[0] != '/' && d.Value[0] != '*' {
		arena = append(arena, '/')
	}
	arena = appendNormalized(arena, d.Value, true)
	p := arena[start:len(arena):len(arena)]
	r := rule{allow: d.Kind == KindAllow, line: d.Line, written: d.Value, length: len(p)}
	if n := len(p); n > 0 && p[n-1] == '$' {
		r.anchored = true
		p = p[:n-1]
	}
	r.pattern = p
	if bytes.IndexByte(p, '*') >= 0 {
		r.segments = bytes.Split(p, []byte{'*'})
	}
	return r, arena
}

// matches reports whether the rule's pattern matches the normalised path: a
// prefix match, "*" matching any run of octets, a final "$" the end of the path.
func (r *rule) matches(path []byte) bool {
	if r.segments == nil {
		if r.anchored {
			return bytes.Equal(path, r.pattern)
		}
		return bytes.HasPrefix(path, r.pattern)
	}
	// Placing each literal segment at its leftmost possible position is
	// optimal when "*" is the only wildcard, so no backtracking is needed.
	segs := r.segments
	if !bytes.HasPrefix(path, segs[0]) {
		return false
	}
	pos := len(segs[0])
	last := len(segs) - 1
	for _, seg := range segs[1:last] {
		i := bytes.Index(path[pos:], seg)
		if i < 0 {
			return false
		}
		pos += i + len(seg)
	}
	tail := segs[last]
	if r.anchored {
		return len(path)-pos >= len(tail) && bytes.HasSuffix(path, tail)
	}
	return bytes.Contains(path[pos:], tail)
}

// Rules are what one crawler obeys in one file: the merged groups naming its
// product token, or else the "*" groups, or else nothing. Safe for concurrent use.
type Rules struct {
	rules    []rule // most specific first; at equal length Allow first
	delay    time.Duration
	hasDelay bool
	source   Source
}

// Source says where a crawler's rules came from.
type Source uint8

const (
	SourceNone     Source = iota // no group applies: everything is allowed
	SourceNamed                  // one or more groups name the crawler
	SourceWildcard               // the "*" groups, since none names the crawler
	SourcePolicy                 // not from a file: set by the fetch-status policy
)

func (s Source) String() string {
	return [...]string{"none", "named", "wildcard", "policy"}[s]
}

// For selects and merges the groups that apply to the product token agent,
// matched case-insensitively and exactly. Groups naming the agent replace the
// "*" groups entirely, even when they hold no rule at all.
func (f *File) For(agent string) *Rules {
	var named, wildcard []*group
	for i := range f.groups {
		g := &f.groups[i]
		if agent != "" && slices.ContainsFunc(g.agents, func(a string) bool { return equalFoldASCII(a, agent) }) {
			named = append(named, g)
		} else if g.wildcard {
			wildcard = append(wildcard, g)
		}
	}
	rs := &Rules{}
	chosen := named
	switch {
	case len(named) > 0:
		rs.source = SourceNamed
	case len(wildcard) > 0:
		rs.source, chosen = SourceWildcard, wildcard
	}
	for _, g := range chosen {
		rs.rules = append(rs.rules, g.rules...)
		if g.hasDelay && (!rs.hasDelay || g.delay > rs.delay) {
			rs.delay, rs.hasDelay = g.delay, true
		}
	}
	slices.SortStableFunc(rs.rules, func(a, b rule) int {
		if c := cmp.Compare(b.length, a.length); c != 0 {
			return c
		}
		if a.allow != b.allow {
			if a.allow {
				return -1
			}
			return 1
		}
		return 0
	})
	return rs
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

var (
	allowAll    = &Rules{source: SourcePolicy}
	disallowAll = &Rules{source: SourcePolicy, rules: []rule{{pattern: []byte("/"), written: "/", length: 1}}}
)

// AllowAll is what a crawler obeys when there are no rules to obey.
func AllowAll() *Rules { return allowAll }

// DisallowAll is what a crawler obeys when it must not fetch anything but
// robots.txt itself.
func DisallowAll() *Rules { return disallowAll }

// Decision is the answer for one URL, with the rule that gave it.
type Decision struct {
	Allowed bool
	Kind    Kind   // KindAllow or KindDisallow; KindUnknown when no rule matched
	Pattern string // the deciding rule's value as written in the file
	Line    int    // the deciding rule's 1-based line; 0 when no line of a file decided
}

// Rule is the deciding rule as an operator would write it ("Disallow: /x"),
// or "" when no rule matched.
func (d Decision) Rule() string {
	if d.Kind == KindUnknown {
		return ""
	}
	return d.Kind.String() + ": " + d.Pattern
}

// pathBufferSize covers all but pathological URLs without touching the heap.
const pathBufferSize = 2048

// Decide answers whether url may be fetched. url may be absolute or just a
// path with its query; the fragment is ignored. It does not allocate for paths
// that normalise to under 2 KiB.
func (rs *Rules) Decide(url string) Decision {
	raw, addSlash := requestPath(url)
	var buf [pathBufferSize]byte
	path := buf[:0]
	if addSlash {
		path = append(path, '/')
	}
	path = appendNormalized(path, raw, false)
	if string(path) == "/robots.txt" {
		return Decision{Allowed: true}
	}
	for i := range rs.rules {
		r := &rs.rules[i]
		if r.matches(path) {
			kind := KindDisallow
			if r.allow {
				kind = KindAllow
			}
			return Decision{Allowed: r.allow, Kind: kind, Pattern: r.written, Line: r.line}
		}
	}
	return Decision{Allowed: true}
}

// Allowed is Decide without the explanation.
func (rs *Rules) Allowed(url string) bool { return rs.Decide(url).Allowed }

// CrawlDelay is the largest Crawl-delay the applying groups declare, and
// whether any declares one.
func (rs *Rules) CrawlDelay() (time.Duration, bool) { return rs.delay, rs.hasDelay }

// Source says whether the rules come from a group naming the crawler, from the
// "*" groups, from no group, or from the fetch-status policy.
func (rs *Rules) Source() Source { return rs.source }
