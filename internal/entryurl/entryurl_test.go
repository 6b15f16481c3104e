package entryurl_test

import (
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/entryurl"
)

type link struct{ rel, typ, href string }

func alternate(links ...link) entryurl.Alternate {
	var a entryurl.Alternate
	for _, l := range links {
		a.Offer(l.rel, l.typ, l.href)
	}
	return a
}

func TestAtomURL(t *testing.T) {
	tests := []struct {
		name  string
		links []link
		id    string
		want  string
	}{
		{"rel-less first, then text/html: the first page wins",
			[]link{{"", "", "https://a.example/1"}, {"alternate", "text/html", "https://a.example/1.html"}}, "", "https://a.example/1"},
		{"text/html first, then rel-less: the first page wins",
			[]link{{"alternate", "text/html", "https://a.example/1.html"}, {"", "", "https://a.example/1"}}, "", "https://a.example/1.html"},
		{"another type yields to a later page",
			[]link{{"alternate", "application/pdf", "https://a.example/1.pdf"}, {"alternate", "text/html; charset=utf-8", "https://a.example/1"}}, "", "https://a.example/1"},
		{"xhtml is a page",
			[]link{{"alternate", "image/png", "https://a.example/1.png"}, {"ALTERNATE", "application/xhtml+xml", "https://a.example/1"}}, "", "https://a.example/1"},
		{"another type when nothing better",
			[]link{{"enclosure", "audio/mpeg", "https://a.example/1.mp3"}, {"alternate", "application/pdf", "https://a.example/1.pdf"}}, "", "https://a.example/1.pdf"},
		{"IANA IRI for alternate",
			[]link{{"http://www.iana.org/assignments/relation/alternate", "", "https://a.example/1"}}, "", "https://a.example/1"},
		{"other relations are not the page",
			[]link{{"self", "", "https://a.example/feed"}, {"replies", "text/html", "https://a.example/1#c"}, {"edit", "", "https://a.example/e"}}, "", ""},
		{"an unusable href is passed over",
			[]link{{"", "", ""}, {"alternate", "text/html", "javascript:alert(1)"}, {"", "", "https://a.example/1"}}, "", "https://a.example/1"},
		{"no alternate: a permalink id",
			[]link{{"self", "", "https://a.example/feed"}}, "https://a.example/?p=1", "https://a.example/?p=1"},
		{"an alternate beats the id",
			[]link{{"", "", "https://a.example/1"}}, "https://a.example/?p=1", "https://a.example/1"},
	}
	for _, tt := range tests {
		e := entryurl.Atom{Alternate: alternate(tt.links...), ID: entryurl.Permalink(tt.id, func(s string) string { return s })}
		if got := e.URL(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRSSURL(t *testing.T) {
	alt := alternate(link{"alternate", "text/html", "https://r.example/alt"})
	tests := []struct {
		name string
		it   entryurl.RSS
		want string
	}{
		{"link first", entryurl.RSS{Link: "https://r.example/link", GUID: "https://r.example/guid", Alternate: alt, About: "https://r.example/about"}, "https://r.example/link"},
		{"then a permalink guid", entryurl.RSS{GUID: "https://r.example/guid", Alternate: alt, About: "https://r.example/about"}, "https://r.example/guid"},
		{"then an atom:link", entryurl.RSS{Alternate: alt, About: "https://r.example/about"}, "https://r.example/alt"},
		{"then rdf:about", entryurl.RSS{About: "https://r.example/about"}, "https://r.example/about"},
		{"an unusable link is passed over", entryurl.RSS{Link: "mailto:me@r.example", GUID: "https://r.example/guid"}, "https://r.example/guid"},
		{"a relative link stays relative", entryurl.RSS{Link: "posts/1", GUID: "https://r.example/guid"}, "posts/1"},
		{"trimmed", entryurl.RSS{Link: "  https://r.example/link\n"}, "https://r.example/link"},
		{"nothing", entryurl.RSS{}, ""},
	}
	for _, tt := range tests {
		if got := tt.it.URL(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPermalink(t *testing.T) {
	resolve := func(s string) string {
		if strings.HasPrefix(s, "/") {
			return "https://p.example" + s
		}
		return s
	}
	tests := []struct{ id, want string }{
		{" https://p.example/1 ", "https://p.example/1"},
		{"/2026/01/post", "https://p.example/2026/01/post"},
		{"1234", ""},
		{"tag:p.example,2026:1", ""},
		{"//p.example/1", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := entryurl.Permalink(tt.id, resolve); got != tt.want {
			t.Errorf("Permalink(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestUsable(t *testing.T) {
	tests := []struct {
		u    string
		want bool
	}{
		{"https://u.example/", true},
		{"HTTP://u.example/", true},
		{"/post/1", true},
		{"post/1:draft", true},
		{"?p=1", true},
		{"", false},
		{"  ", false},
		{"javascript:alert(1)", false},
		{"mailto:me@u.example", false},
		{"tag:u.example,2026:1", false},
		{"ftp://u.example/f", false},
	}
	for _, tt := range tests {
		if got := entryurl.Usable(tt.u); got != tt.want {
			t.Errorf("Usable(%q) = %v, want %v", tt.u, got, tt.want)
		}
	}
}

func TestRelIs(t *testing.T) {
	tests := []struct {
		rel, want string
		ok        bool
	}{
		{"", "alternate", true},
		{" Alternate ", "alternate", true},
		{"", "self", false},
		{"http://www.iana.org/assignments/relation/next", "next", true},
		{"alternate", "self", false},
	}
	for _, tt := range tests {
		if got := entryurl.RelIs(tt.rel, tt.want); got != tt.ok {
			t.Errorf("RelIs(%q, %q) = %v, want %v", tt.rel, tt.want, got, tt.ok)
		}
	}
}
