package robots

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// rule is one Allow or Disallow line, its pattern normalised for matching.
type rule struct {
	allow    bool
	anchored bool // the pattern ended in "$"
	alias    bool // the directory alias of an "Allow: …/index.html" rule
	line     int
	offset   int      // where the pattern starts in the file's arena of patterns
	length   int      // specificity: octets of the normalised pattern, "*" and "$" included
	written  string   // the value as the file wrote it, for reporting
	pattern  string   // normalised, without a final "$"
	segments []string // pattern split at "*"; nil when it has no wildcard
	head     string   // literal text every path the rule matches starts with
}

// newRule normalises d's pattern onto the end of arena; finish points the
// rule at its pattern once the arena is complete.
func newRule(d Directive, arena []byte) (rule, []byte) {
	start := len(arena)
	if d.Value[0] != '/' && d.Value[0] != '*' {
		arena = append(arena, '/')
	}
	arena = appendNormalized(arena, d.Value, true)
	r := rule{allow: d.Kind == KindAllow, line: d.Line, written: d.Value, offset: start, length: len(arena) - start}
	r.anchored = arena[len(arena)-1] == '$'
	return r, arena
}

// finish gives r its pattern, a substring of the completed arena: all of a
// file's patterns share one allocation.
func (r *rule) finish(arena string) {
	end := r.offset + r.length
	if r.anchored {
		end--
	}
	r.pattern = arena[r.offset:end]
	r.head = r.pattern
	if strings.IndexByte(r.pattern, '*') >= 0 {
		r.segments = strings.Split(r.pattern, "*")
		r.head = r.segments[0]
	}
	if i := strings.IndexByte(r.head, '%'); i >= 0 {
		// An escape in the path may be spelt differently before normalisation.
		r.head = r.head[:i]
	}
}

// matches reports whether the rule's pattern matches the normalised path: a
// prefix match, "*" matching any run of octets, a final "$" the end of the path.
func (r *rule) matches(path string) bool {
	if r.segments == nil {
		if r.anchored {
			return path == r.pattern
		}
		return strings.HasPrefix(path, r.pattern)
	}
	// Placing each literal segment at its leftmost possible position is
	// optimal when "*" is the only wildcard, so no backtracking is needed.
	segs := r.segments
	if !strings.HasPrefix(path, segs[0]) {
		return false
	}
	pos := len(segs[0])
	last := len(segs) - 1
	for _, seg := range segs[1:last] {
		i := strings.Index(path[pos:], seg)
		if i < 0 {
			return false
		}
		pos += i + len(seg)
	}
	tail := segs[last]
	if r.anchored {
		return len(path)-pos >= len(tail) && strings.HasSuffix(path, tail)
	}
	return strings.Contains(path[pos:], tail)
}

// Rules are what one crawler obeys in one file: the merged groups naming its
// product token, or else the "*" groups, or else nothing. Safe for concurrent use.
type Rules struct {
	rules  []rule  // most specific first; at equal length Allow first
	prefix string  // literal text every rule's matches start with, free of escapes
	byHead []int32 // rule indexes ordered by head, for groups too large to scan
	// closer marks (with lookCloser) the octets that after a path's leading "/"
	// call for a closer look: the second octets of the rules' heads, and
	// every octet normalisation may change. A path whose second octet is not
	// among them can match no rule.
	closer   [256]byte
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
	rs.prefix = commonHead(rs.rules)
	rs.closer = secondOctets(rs.rules)
	if len(rs.rules) > linearScanMax {
		rs.byHead = indexHeads(rs.rules)
	}
	return rs
}

func indexHeads(rules []rule) []int32 {
	byHead := make([]int32, len(rules))
	for i := range byHead {
		byHead[i] = int32(i)
	}
	slices.SortFunc(byHead, func(a, b int32) int {
		return cmp.Or(strings.Compare(rules[a].head, rules[b].head), cmp.Compare(a, b))
	})
	return byHead
}

// lookCloser marks an octet in Rules.closer. Or-ed into a path's first
// octet it can never leave a "/", so one comparison tests both octets.
const lookCloser = 0x80

func secondOctets(rules []rule) [256]byte {
	var set [256]byte
	for c := range set {
		if !keptAsIs[c] || c == '/' {
			set[c] = lookCloser
		}
	}
	for i := range rules {
		h := rules[i].head
		if len(h) < 2 || h[0] != '/' {
			return everyOctet
		}
		set[h[1]] = lookCloser
	}
	return set
}

var everyOctet = func() (all [256]byte) {
	for c := range all {
		all[c] = lookCloser
	}
	return all
}()

// linearScanMax is the group size up to which trying every rule in order is
// faster than searching the head index.
const linearScanMax = 16

func commonHead(rules []rule) string {
	if len(rules) == 0 {
		return ""
	}
	p := rules[0].head
	for i := 1; i < len(rules) && p != ""; i++ {
		h := rules[i].head
		n := 0
		for n < len(p) && n < len(h) && p[n] == h[n] {
			n++
		}
		p = p[:n]
	}
	return p
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
	allowAll    = &Rules{source: SourcePolicy, closer: everyOctet}
	disallowAll = &Rules{source: SourcePolicy, rules: []rule{{pattern: "/", written: "/", length: 1, head: "/"}}, prefix: "/",
		closer: everyOctet}
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

// allowedByNoRule is the answer when no rule matches.
var allowedByNoRule = Decision{Allowed: true}

// pathBufferSize covers all but pathological URLs without touching the heap.
const pathBufferSize = 2048

// Decide answers whether url may be fetched. url may be absolute or just a
// path with its query; the fragment is ignored. It does not allocate for paths
// that normalise to under 2 KiB.
func (rs *Rules) Decide(url string) Decision {
	// Most paths are answered by their second octet alone.
	if len(url) > 1 && url[0]|rs.closer[url[1]] == '/' {
		return allowedByNoRule
	}
	return rs.decideURL(url)
}

func (rs *Rules) decideURL(url string) Decision {
	if len(rs.rules) == 0 {
		return Decision{Allowed: true}
	}
	if len(url) > 0 && url[0] == '/' && (len(url) == 1 || url[1] != '/') {
		// Most paths leave the text all rules share within a few octets. If
		// one leaves it at an octet normalisation keeps as it is (a "#" among
		// them, since no pattern holds one), no rule can match, and the rest
		// of the path need not even be read.
		p := rs.prefix
		m := min(len(p), len(url))
		n := 0
		for n < m && url[n] == p[n] {
			n++
		}
		if n < len(p) && (n == len(url) || keptAsIs[url[n]]) {
			return Decision{Allowed: true}
		}
		// One pass finds the fragment and checks that the path is already in
		// normal form, the common case for URLs taken from feeds and sitemaps.
		for i := n; i < len(url); i++ {
			if c := url[i]; c == '#' {
				return rs.decide(url[:i])
			} else if !keptAsIs[c] {
				return rs.decideNormalizing(requestPath(url))
			}
		}
		return rs.decide(url)
	}
	raw, addSlash := requestPath(url)
	if !addSlash && isNormal(raw) {
		return rs.decide(raw)
	}
	return rs.decideNormalizing(raw, addSlash)
}

// decideNormalizing is apart from Decide so that only the paths that need it
// pay for the buffer.
//
//go:noinline
func (rs *Rules) decideNormalizing(raw string, addSlash bool) Decision {
	var buf [pathBufferSize]byte
	path := buf[:0]
	if addSlash {
		path = append(path, '/')
	}
	path = appendNormalized(path, raw, false)
	// The view of buf does not outlive this call: decide keeps no reference.
	return rs.decide(unsafe.String(unsafe.SliceData(path), len(path)))
}

func (rs *Rules) decide(path string) Decision {
	if path == "/robots.txt" {
		return Decision{Allowed: true}
	}
	best := -1
	if rs.byHead == nil {
		for i := range rs.rules {
			if rs.rules[i].matches(path) {
				best = i
				break
			}
		}
	} else {
		best = rs.searchHeads(path)
	}
	if best < 0 {
		return Decision{Allowed: true}
	}
	r := &rs.rules[best]
	kind := KindDisallow
	if r.allow {
		kind = KindAllow
	}
	return Decision{Allowed: r.allow, Kind: kind, Pattern: r.written, Line: r.line}
}

// searchHeads returns the first rule, in order of precedence, that matches
// path, or -1. Only rules whose head is a prefix of the path can match, and
// in head order those heads form a chain the search walks down: the greatest
// head not above the path is either a prefix of it, or shares with it a
// prefix that every remaining candidate must fit within.
func (rs *Rules) searchHeads(path string) int {
	best := -1
	p := path
	for {
		i := rs.firstAbove(p) - 1
		if i < 0 {
			return best
		}
		h := rs.rules[rs.byHead[i]].head
		if !strings.HasPrefix(p, h) {
			n := 0
			for n < len(h) && h[n] == p[n] {
				n++
			}
			p = p[:n]
			continue
		}
		// Within a run of equal heads, indexes ascend in order of precedence:
		// the first match is the run's best, and none past best can win.
		for _, k := range rs.byHead[rs.firstAtLeast(h) : i+1] {
			if best >= 0 && int(k) > best {
				break
			}
			if rs.rules[k].matches(path) {
				best = int(k)
				break
			}
		}
		if h == "" {
			return best
		}
		p = h[:len(h)-1]
	}
}

// firstAbove is the first index of byHead whose head sorts after p.
func (rs *Rules) firstAbove(p string) int {
	lo, hi := 0, len(rs.byHead)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if rs.rules[rs.byHead[mid]].head <= p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// firstAtLeast is the first index of byHead whose head does not sort before h.
func (rs *Rules) firstAtLeast(h string) int {
	lo, hi := 0, len(rs.byHead)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if rs.rules[rs.byHead[mid]].head < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Allowed is Decide without the explanation.
func (rs *Rules) Allowed(url string) bool { return rs.Decide(url).Allowed }

// CrawlDelay is the largest Crawl-delay the applying groups declare, and
// whether any declares one.
func (rs *Rules) CrawlDelay() (time.Duration, bool) { return rs.delay, rs.hasDelay }

// Source says whether the rules come from a group naming the crawler, from the
// "*" groups, from no group, or from the fetch-status policy.
func (rs *Rules) Source() Source { return rs.source }
