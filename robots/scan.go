package robots

import "strings"

// Kind is what a robots.txt line says.
type Kind uint8

const (
	KindUnknown Kind = iota // a line with a key we do not know, or no key at all
	KindUserAgent
	KindAllow
	KindDisallow
	KindCrawlDelay
	KindSitemap
)

func (k Kind) String() string {
	switch k {
	case KindUserAgent:
		return "User-agent"
	case KindAllow:
		return "Allow"
	case KindDisallow:
		return "Disallow"
	case KindCrawlDelay:
		return "Crawl-delay"
	case KindSitemap:
		return "Sitemap"
	}
	return "Unknown"
}

// Directive is one non-blank, non-comment line of a robots.txt file.
type Directive struct {
	Line  int    // 1-based line number; CR, LF and CRLF each end a line
	Kind  Kind   // KindUnknown when the key is not one we act on
	Key   string // the key as written, trimmed
	Value string // the value with comment and surrounding whitespace removed
}

// MaxLineLength is where an over-long line is cut, as Google's parser does:
// its buffer holds 8 × 2083 bytes (2083 being the longest URL Internet
// Explorer accepted) including a terminating NUL. Nothing legitimate is that
// long, and cutting bounds the cost of one line.
const MaxLineLength = 8*2083 - 1

// Scan calls fn for every line of body that holds a key or a value, in order.
// It never fails: whatever cannot be read as a directive is reported as
// KindUnknown, so a linter can show it.
func Scan(body []byte, fn func(Directive)) {
	scan(string(body), fn)
}

// scan works on one string copy of the file so that every Value is a
// substring of it rather than an allocation of its own.
func scan(body string, fn func(Directive)) {
	body = skipBOM(body)
	line := 0
	for len(body) > 0 {
		var raw string
		i := strings.IndexAny(body, "\r\n")
		if i < 0 {
			raw, body = body, ""
		} else {
			raw = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		line++
		if len(raw) > MaxLineLength {
			raw = raw[:MaxLineLength]
		}
		if d, ok := readLine(raw); ok {
			d.Line = line
			fn(d)
		}
	}
}

// skipBOM drops a UTF-8 byte order mark, and also the truncated one or two
// byte prefixes of it that broken editors leave behind.
func skipBOM(s string) string {
	const bom = "\xEF\xBB\xBF"
	n := 0
	for n < len(bom) && n < len(s) && s[n] == bom[n] {
		n++
	}
	return s[n:]
}

// readLine splits one line into key and value. The separator is a colon; when
// there is none, the first run of whitespace separates a key from a value, so
// that "Disallow /" means what it says.
func readLine(raw string) (Directive, bool) {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	s := strings.TrimSpace(raw)
	if s == "" {
		return Directive{}, false
	}
	var key, value string
	if i := strings.IndexByte(s, ':'); i >= 0 {
		key, value = s[:i], s[i+1:]
	} else if i := strings.IndexAny(s, " \t"); i >= 0 {
		key, value = s[:i], s[i+1:]
		// A line with more than one word of value and no colon is prose or
		// garbage, not a directive whose colon was forgotten.
		if strings.ContainsAny(strings.TrimSpace(value), " \t") {
			return Directive{Kind: KindUnknown, Key: s}, true
		}
	} else {
		return Directive{Kind: KindUnknown, Key: s}, true
	}
	key = strings.TrimSpace(key)
	value = strings.TrimSpace(value)
	return Directive{Kind: kindOf(key), Key: key, Value: value}, true
}

// keySpellings lists, per kind, the keys recognised case-insensitively,
// misspellings that real files carry included. Accepting a misspelt Disallow
// errs on the side of the site owner; Allow has none for the same reason.
var keySpellings = [...]struct {
	kind  Kind
	names []string
}{
	{KindUserAgent, []string{"user-agent", "useragent", "user agent", "user_agent"}},
	{KindAllow, []string{"allow"}},
	{KindDisallow, []string{"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"}},
	{KindCrawlDelay, []string{"crawl-delay", "crawldelay", "crawl delay", "crawl_delay"}},
	{KindSitemap, []string{"sitemap", "site-map", "sitemaps"}},
}

func kindOf(key string) Kind {
	for _, k := range keySpellings {
		for _, name := range k.names {
			if len(name) == len(key) && strings.EqualFold(name, key) {
				return k.kind
			}
		}
	}
	return KindUnknown
}
