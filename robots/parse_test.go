package robots

import (
	"strings"
	"testing"
	"time"
)

// filler returns n bytes of harmless rules for another crawler.
func filler(n int) string {
	var b strings.Builder
	b.WriteString("User-agent: FillerBot\n")
	for b.Len() < n {
		b.WriteString("Disallow: /filler/some/long/path/segment/to/take/room\n")
	}
	return b.String()
}

func TestParseReadsPast500KiB(t *testing.T) {
	// RFC 9309 §2.5: at least 500 KiB must be parsed. A rule at 600 KiB counts.
	body := filler(600<<10) + "User-agent: CorpusBot\nDisallow: /late/\n"
	if got := Parse([]byte(body)).For("CorpusBot").Decide("/late/x"); got.Allowed {
		t.Fatalf("rule past 600 KiB ignored: %+v", got)
	}
}

func TestParseStopsAtMaxFileSize(t *testing.T) {
	body := "User-agent: CorpusBot\nDisallow: /early/\n" + filler(MaxFileSize) + "\nUser-agent: CorpusBot\nDisallow: /too-late/\n"
	rules := Parse([]byte(body)).For("CorpusBot")
	if rules.Allowed("/early/x") {
		t.Error("rule at the start ignored")
	}
	if !rules.Allowed("/too-late/x") {
		t.Error("rule past MaxFileSize obeyed")
	}
}

func TestCrawlDelayValues(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"10", 10 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"2.5s", 2500 * time.Millisecond, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"NaN", 0, false},
		{"1e12", MaxCrawlDelay, true},
	}
	for _, tt := range tests {
		rules := Parse([]byte("User-agent: *\nCrawl-delay: " + tt.value + "\n")).For("CorpusBot")
		got, ok := rules.CrawlDelay()
		if got != tt.want || ok != tt.ok {
			t.Errorf("Crawl-delay: %s gives %v %v, want %v %v", tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

func TestProductToken(t *testing.T) {
	tests := map[string]string{
		"CorpusBot/1.0 (+https://corpus.blog/crawler)":            "CorpusBot",
		"Mozilla/5.0 (compatible; ArgandBot/1.0; +https://a.org)": "ArgandBot",
		"Mozilla/5.0 (X11; Linux x86_64)":                         "Mozilla",
		"  Foo_Bar-baz crawler":                                   "Foo_Bar-baz",
		"/1.0":                                                    "",
	}
	for ua, want := range tests {
		if got := ProductToken(ua); got != want {
			t.Errorf("ProductToken(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestDecisionRule(t *testing.T) {
	rules := Parse([]byte("User-agent: *\n\ndissallow: /x\n")).For("CorpusBot")
	d := rules.Decide("https://example.com/x/y")
	if d.Rule() != "Disallow: /x" || d.Line != 3 || d.Allowed {
		t.Fatalf("got %+v, rule %q", d, d.Rule())
	}
	if d := DisallowAll().Decide("/a"); d.Rule() != "Disallow: /" || d.Line != 0 {
		t.Fatalf("DisallowAll: %+v", d)
	}
	if d := AllowAll().Decide("/a"); d.Rule() != "" || !d.Allowed {
		t.Fatalf("AllowAll: %+v", d)
	}
}

func TestStringRoundTrip(t *testing.T) {
	in := "Sitemap: https://a.example/s.xml\nUser-agent: *\nUser-agent: CorpusBot/2\nCrawl-delay: 1.5\nDisallow: /café/\nAllow: /d/index.html\n\nUser-agent: ツ\nDisallow: /\n\nUser-agent: other\n"
	want := "User-agent: *\nUser-agent: CorpusBot\nCrawl-delay: 1.5\nDisallow: /caf%C3%A9/\nAllow: /d/index.html\n\nUser-agent: other\nDisallow:\n\nSitemap: https://a.example/s.xml\n"
	if got := Parse([]byte(in)).String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
