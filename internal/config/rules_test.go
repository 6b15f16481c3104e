package config

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestUserAgentRule(t *testing.T) {
	tests := []struct {
		ua      string
		wantErr string
	}{
		{ua: "CorpusBot/1.0 (+https://corpus.blog/crawler)"},
		{ua: "CorpusBot/1.0"},
		{ua: "Corpus-Bot_X/2"},
		{ua: "", wantErr: "must not be empty"},
		{ua: "CorpusBot", wantErr: "must start with a product token and version"},
		{ua: "CorpusBot/", wantErr: "must start with a product token and version"},
		{ua: "CorpusBot/ 1.0", wantErr: "must start with a product token and version"},
		{ua: "/1.0", wantErr: "must start with a product token and version"},
		{ua: "Corpus Bot/1.0", wantErr: "must start with a product token and version"},
		{ua: "Corpus2Bot/1.0", wantErr: "must start with a product token and version"},
		{ua: "CorpusBot/1.0\r\nX-Evil: 1", wantErr: "must be printable ASCII"},
		{ua: "CorpusBot/1.0 é", wantErr: "must be printable ASCII"},
		{ua: "CorpusBot/1.0 " + strings.Repeat("x", 600), wantErr: "must be at most 512"},
	}
	for _, tt := range tests {
		checkRule(t, userAgentRule, tt.ua, tt.wantErr)
	}
}

func TestDBRule(t *testing.T) {
	tests := []struct {
		db      string
		wantErr string
	}{
		{db: "./corpusbot.db"},
		{db: "/var/lib/corpusbot/corpus.db"},
		{db: "postgres://crawler:secret@db.internal:5432/corpus?sslmode=require"},
		{db: "postgresql://db.internal/corpus"},
		{db: "POSTGRES://db.internal/corpus"},
		{db: "", wantErr: "must not be empty"},
		{db: "   ", wantErr: "must not be empty"},
		{db: "mysql://db.internal/corpus", wantErr: `unsupported database URL scheme "mysql"`},
		{db: "postgres://crawler:secret@db.internal/%zz", wantErr: "invalid postgres URL"},
	}
	for _, tt := range tests {
		checkRule(t, dbRule, tt.db, tt.wantErr)
	}
	// The error goes to logs and terminals; the password must not.
	err := dbRule.check("postgres://crawler:secret@db.internal/%zz")
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %v leaks the password", err)
	}
}

func TestWarcDirRule(t *testing.T) {
	tests := []struct {
		dir     string
		wantErr string
	}{
		{dir: ""},
		{dir: "./warc"},
		{dir: "/var/lib/corpusbot/warc"},
		{dir: "archive with spaces/2026"},
		{dir: `C:\corpus\warc`},
		{dir: "./odd://name"}, // a relative path, however odd, not a URL
		{dir: "  ", wantErr: "not blanks"},
		{dir: "s3://corpus/warc", wantErr: "is a URL"},
		{dir: "file:///var/warc", wantErr: "is a URL"},
		{dir: "warc\n", wantErr: "control character"},
		{dir: "warc\x00", wantErr: "control character"},
	}
	for _, tt := range tests {
		checkRule(t, warcDirRule, tt.dir, tt.wantErr)
	}
}

func TestRanges(t *testing.T) {
	gap := positiveUpTo(24 * time.Hour)
	for _, tt := range []struct {
		v       time.Duration
		wantErr string
	}{
		{0, "must be more than 0"},
		{-time.Second, "must be more than 0"},
		{time.Nanosecond, ""},
		{24 * time.Hour, ""},
		{24*time.Hour + 1, "must be at most 24h"},
	} {
		err := gap.check(tt.v)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("positiveUpTo(24h).check(%v) = %v, want %q", tt.v, err, tt.wantErr)
		}
	}
	pages := within(1, 100000, strconv.Itoa)
	if err := pages.check(0); err == nil || err.Error() != "must be at least 1" {
		t.Errorf("within(1, 100000).check(0) = %v", err)
	}
	if err := pages.check(100001); err == nil || err.Error() != "must be at most 100000" {
		t.Errorf("within(1, 100000).check(100001) = %v", err)
	}
	if err := pages.check(1); err != nil {
		t.Errorf("within(1, 100000).check(1) = %v", err)
	}
	if pages.desc != "from 1 to 100000" {
		t.Errorf("desc = %q", pages.desc)
	}
}

func TestProductToken(t *testing.T) {
	for ua, want := range map[string]string{
		"CorpusBot/1.0 (+https://corpus.blog/crawler)": "CorpusBot",
		"Corpus-Bot_X/2":  "Corpus-Bot_X",
		"CorpusBot":       "CorpusBot",
		"":                "",
		"/1.0":            "",
		"Corpus2Bot/1.0":  "Corpus",
		"CorpusBot /1.0 ": "CorpusBot",
	} {
		if got := (Settings{UserAgent: ua}).ProductToken(); got != want {
			t.Errorf("ProductToken(%q) = %q, want %q", ua, got, want)
		}
	}
	if got := Defaults().ProductToken(); got != "CorpusBot" {
		t.Errorf("Defaults().ProductToken() = %q", got)
	}
}

func checkRule(t *testing.T, r rule[string], v, wantErr string) {
	t.Helper()
	err := r.check(v)
	if wantErr == "" {
		if err != nil {
			t.Errorf("check(%q) = %v, want nil", v, err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Errorf("check(%q) = %v, want an error containing %q", v, err, wantErr)
	}
}

// TestHelpSaysEachThingOnce: no setting's help (its --flag help, its line
// on the crawler page) says the same thing twice: none of its clauses, the
// purpose's, the kind's and the rule's, uses only words another clause
// uses too. The kind and the rule once both described a string setting's
// values: "an absolute http(s) URL, or empty; empty, or an absolute http or
// https URL".
func TestHelpSaysEachThingOnce(t *testing.T) {
	for _, p := range table {
		clauses := strings.Split(strings.ReplaceAll(p.help, "`", ""), "; ")
		for i, a := range clauses {
			for j, b := range clauses {
				if i != j && saysNothingMore(a, b) {
					t.Errorf("%s: %q repeats %q in %q", p.name, a, b, p.help)
				}
			}
		}
	}
}

func TestHelpRepeatDetected(t *testing.T) {
	for _, tt := range []struct {
		a, b   string
		repeat bool
	}{
		{"an absolute http(s) URL, or empty", "empty, or an absolute http or https URL", true},
		{"adaptive or fixed", "one of adaptive, fixed", true},
		{"CIDRs or addresses, comma-separated, or empty", "CIDRs or addresses, comma-separated, or empty", true},
		{"a whole number", "from 1 to 100000", false},
		{"a duration such as 90s or 1h30m, or whole seconds", "from 0s to 24h, under 1m for simulations only", false},
	} {
		if got := saysNothingMore(tt.a, tt.b); got != tt.repeat {
			t.Errorf("saysNothingMore(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

// saysNothingMore reports whether every significant word of a is in b.
func saysNothingMore(a, b string) bool {
	words := significantWords(a)
	if len(words) == 0 {
		return false
	}
	in := significantWords(b)
	for w := range words {
		if !in[w] {
			return false
		}
	}
	return true
}

// significantWords are the words of s, lower case, without the ones every
// clause may share (articles, conjunctions, "one of") or single letters.
func significantWords(s string) map[string]bool {
	common := map[string]bool{"a": true, "an": true, "the": true, "or": true, "and": true, "of": true, "one": true,
		"to": true, "from": true, "in": true, "on": true, "as": true, "is": true, "it": true, "its": true, "for": true, "with": true}
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) > 1 && !common[w] {
			out[w] = true
		}
	}
	return out
}

func TestNetworksRule(t *testing.T) {
	tests := []struct {
		networks string
		wantErr  string
	}{
		{networks: ""}, // nobody
		{networks: "127.0.0.0/8,::1/128"},
		{networks: "10.0.0.0/8, 192.168.1.7"}, // a bare address is its own /32
		{networks: "fd00::/8 127.0.0.1"},
		{networks: "0.0.0.0/0,::/0"}, // everyone, if the operator says so
		{networks: "10.0.0.0/33", wantErr: `network "10.0.0.0/33"`},
		{networks: "127.0.0.0/8;::1/128", wantErr: `network "127.0.0.0/8;::1/128"`},
		{networks: "localhost", wantErr: "want a CIDR prefix or an IP address"},
		{networks: "fe80::1%eth0", wantErr: "want a CIDR prefix"},
	}
	for _, tt := range tests {
		checkRule(t, networksRule, tt.networks, tt.wantErr)
	}
}

func TestProxyDNSValues(t *testing.T) {
	for _, tt := range []struct {
		raw, want, wantErr string
	}{
		{raw: "local", want: ProxyDNSLocal},
		{raw: "proxy", want: ProxyDNSProxy},
		{raw: "remote", wantErr: "must be one of local, proxy"},
		{raw: "PROXY", wantErr: "must be one of local, proxy"},
	} {
		s, err := Load(envOf(map[string]string{"CORPUSBOT_PROXY_DNS": tt.raw}), "", nil)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("PROXY_DNS=%q: error %v, want %q", tt.raw, err, tt.wantErr)
			}
			continue
		}
		if err != nil || s.ProxyDNS != tt.want {
			t.Errorf("PROXY_DNS=%q: %q, %v", tt.raw, s.ProxyDNS, err)
		}
	}
}
