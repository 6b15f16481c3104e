package robots

import (
	"bytes"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxCrawlDelay bounds a declared Crawl-delay, so that a typo of a few extra
// digits pauses a site for a day rather than forever.
const MaxCrawlDelay = 24 * time.Hour

// File is a parsed robots.txt. It is immutable and safe for concurrent use.
type File struct {
	groups   []group
	sitemaps []string
}

// group is one group of the file as written: the agents its user-agent lines
// name and the rules that follow them.
type group struct {
	agents   []string // product tokens as written; "" for a line naming no valid token
	wildcard bool     // one of the lines is "User-agent: *"
	rules    []rule   // in file order
	delay    time.Duration
	hasDelay bool
}

var indexHTML = []byte("/index.html")

// MaxFileSize is how much of a robots.txt file is read: twice the 500 KiB
// that RFC 9309 §2.5 requires at least, so every real file is read whole
// while a hostile one cannot cost unbounded memory. A fetcher need not read
// more than this.
const MaxFileSize = 1 << 20

// Parse reads a robots.txt body served with a 2xx status. It never fails:
// lines it cannot read are skipped, as RFC 9309 §2.2 asks. Past MaxFileSize
// the file is cut at the last line end before the limit.
func Parse(body []byte) *File {
	if len(body) > MaxFileSize {
		body = body[:MaxFileSize]
		if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
			body = body[:i+1]
		}
	}
	f := &File{}
	var cur *group
	sawRule := false // a rule line has been seen in cur: the next user-agent line starts a new group
	arena := make([]byte, 0, len(body)+len(body)/4)
	seenSitemap := map[string]bool{}
	scan(string(body), func(d Directive) {
		switch d.Kind {
		case KindUserAgent:
			if cur == nil || sawRule {
				f.groups = append(f.groups, group{})
				cur = &f.groups[len(f.groups)-1]
				sawRule = false
			}
			if isWildcardAgent(d.Value) {
				cur.wildcard = true
			} else {
				cur.agents = append(cur.agents, productToken(d.Value))
			}
		case KindAllow, KindDisallow:
			if cur == nil {
				return // rules before any user-agent line belong to no group
			}
			sawRule = true
			if d.Value == "" {
				return // "Disallow:" with no path allows everything: no rule to add
			}
			var r rule
			r, arena = newRule(d, arena)
			cur.rules = append(cur.rules, r)
			if p := arena[r.offset : r.offset+r.length]; r.allow && bytes.HasSuffix(p, indexHTML) && bytes.IndexByte(p, '*') < 0 {
				// Allowing a directory's index page allows the directory itself,
				// as Google reads it.
				alias := d
				alias.Value = string(p[:len(p)-len(indexHTML)+1]) + "$"
				r, arena = newRule(alias, arena)
				r.written, r.alias = d.Value, true
				cur.rules = append(cur.rules, r)
			}
		case KindCrawlDelay:
			if cur == nil {
				return
			}
			if delay, ok := parseCrawlDelay(d.Value); ok && (!cur.hasDelay || delay > cur.delay) {
				cur.delay, cur.hasDelay = delay, true
			}
		case KindSitemap:
			if isAbsoluteHTTP(d.Value) && !seenSitemap[d.Value] {
				seenSitemap[d.Value] = true
				f.sitemaps = append(f.sitemaps, d.Value)
			}
		}
	})
	patterns := string(arena)
	for i := range f.groups {
		for j := range f.groups[i].rules {
			f.groups[i].rules[j].finish(patterns)
		}
	}
	return f
}

// isWildcardAgent recognises "*", also when junk follows it after a space
// ("User-agent: * # everyone" has lost its comment by now; "* bots" has not).
func isWildcardAgent(v string) bool {
	return v == "*" || strings.HasPrefix(v, "*") && len(v) > 1 && (v[1] == ' ' || v[1] == '\t')
}

// productToken is the leading run of letters, "_" and "-" of a user-agent
// value (RFC 9309 §2.2.1): "CorpusBot/1.0" and "CorpusBot crawler" both name
// CorpusBot. A value that starts with anything else names no one.
func productToken(v string) string {
	n := 0
	for n < len(v) && isTokenChar(v[n]) {
		n++
	}
	return v[:n]
}

func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
}

// ProductToken extracts the product token a crawler matches groups with from
// its full User-Agent string: "CorpusBot/1.0 (+https://corpus.blog/crawler)"
// gives "CorpusBot". A string in the "Mozilla/5.0 (compatible; Name/1.0)"
// form gives the name inside the comment.
func ProductToken(userAgent string) string {
	ua := strings.TrimSpace(userAgent)
	if strings.HasPrefix(ua, "Mozilla/") {
		if _, rest, ok := strings.Cut(ua, "compatible;"); ok {
			if tok := productToken(strings.TrimSpace(rest)); tok != "" {
				return tok
			}
		}
	}
	return productToken(ua)
}

// IsValidToken reports whether s is usable as a product token: non-empty and
// made only of letters, "_" and "-".
func IsValidToken(s string) bool {
	return s != "" && productToken(s) == s
}

func parseCrawlDelay(v string) (time.Duration, bool) {
	secs, err := strconv.ParseFloat(strings.TrimSuffix(v, "s"), 64)
	if err != nil || secs < 0 || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return 0, false
	}
	if secs >= MaxCrawlDelay.Seconds() {
		return MaxCrawlDelay, true
	}
	return time.Duration(secs * float64(time.Second)), true
}

func isAbsoluteHTTP(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Sitemaps returns the absolute sitemap URLs the file declares, wherever in
// the file they stand, in order and without duplicates. Any host is allowed:
// that is what makes the directive useful.
func (f *File) Sitemaps() []string {
	return append([]string(nil), f.sitemaps...)
}
