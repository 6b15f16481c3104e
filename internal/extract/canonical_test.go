package extract

import (
	"net/url"
	"testing"
)

func TestCanonical(t *testing.T) {
	page, _ := url.Parse("http://example.org/2026/01/post/?utm_source=rss")
	tests := []struct {
		name, html, want string
	}{
		{"absolute", `<link rel="canonical" href="https://www.example.org/2026/01/post">`, "https://www.example.org/2026/01/post"},
		{"relative", `<link rel="canonical" href="/2026/01/post">`, "http://example.org/2026/01/post"},
		{"rel tokens, case", `<link REL="Canonical Other" href="/a">`, "http://example.org/a"},
		{"first wins", `<link rel="canonical" href="/first"><link rel="canonical" href="/second">`, "http://example.org/first"},
		{"against base", `<base href="https://cdn.example.org/x/"><link rel="canonical" href="y">`, "https://cdn.example.org/x/y"},
		{"fragment dropped", `<link rel="canonical" href="/a#top">`, "http://example.org/a"},
		{"not http", `<link rel="canonical" href="ftp://example.org/a">`, ""},
		{"empty href", `<link rel="canonical" href="">`, ""},
		{"none", `<link rel="alternate" href="/feed">`, ""},
		{"an <a> says nothing", `</head><body><a rel="canonical" href="/elsewhere">x</a>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `<!doctype html><html><head><title>T</title>` + tt.html + `</head><body><article><p>Text.</p></article></body></html>`
			p, err := Parse([]byte(doc), page, "CorpusBot")
			if err != nil {
				t.Fatal(err)
			}
			if p.Canonical != tt.want {
				t.Errorf("Canonical = %q, want %q", p.Canonical, tt.want)
			}
		})
	}
}

func TestLinkCanonical(t *testing.T) {
	base, _ := url.Parse("http://example.org/p/")
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{`<https://www.example.org/p>; rel="canonical"`}, "https://www.example.org/p"},
		{[]string{`</p>; rel=canonical`}, "http://example.org/p"},
		{[]string{`<https://a.example/x,y>; rel="preload", <https://example.org/c>; rel="canonical"`}, "https://example.org/c"},
		{[]string{`<https://example.org/next>; rel="next"`, `<https://example.org/c2>; title="a, b"; rel="canonical"`}, "https://example.org/c2"},
		{[]string{`<https://example.org/x>; rel="alternate canonical"`}, "https://example.org/x"},
		{[]string{`https://example.org/x; rel="canonical"`}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := LinkCanonical(tt.values, base); got != tt.want {
			t.Errorf("LinkCanonical(%q) = %q, want %q", tt.values, got, tt.want)
		}
	}
}
