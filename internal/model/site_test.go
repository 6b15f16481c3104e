package model_test

import (
	"net/url"
	"testing"

	"corpus.blog/corpusbot/internal/model"
)

func TestSite(t *testing.T) {
	cases := map[string]string{
		"a.blog.example":        "blog.example",
		"B.Blog.Example":        "blog.example",
		"b.blog.example:8080":   "blog.example",
		"www.example.co.uk":     "example.co.uk",
		"foo.github.io":         "foo.github.io",
		"x.foo.github.io":       "foo.github.io",
		"myblog.blogspot.com":   "myblog.blogspot.com",
		"github.io":             "github.io",
		"localhost":             "localhost",
		"127.0.0.1:80":          "127.0.0.1",
		"[2001:db8::1]:443":     "2001:db8::1",
		"bücher.example":        "xn--bcher-kva.example",
		"www.BÜCHER.example":    "xn--bcher-kva.example",
		"xn--bcher-kva.example": "xn--bcher-kva.example",
		"example.com.":          "example.com",
		"deep.sub.example.com":  "example.com",
		"blog.例え.jp":            "xn--r8jz45g.jp",
	}
	for in, want := range cases {
		if got := model.Site(in); got != want {
			t.Errorf("Site(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOrigin(t *testing.T) {
	cases := map[string]string{
		"http://Example.com/a":      "http://example.com:80",
		"http://example.com:80/b":   "http://example.com:80",
		"https://example.com/":      "https://example.com:443",
		"https://example.com:8443/": "https://example.com:8443",
		"http://bücher.example/":    "http://xn--bcher-kva.example:80",
	}
	for in, want := range cases {
		u, _ := url.Parse(in)
		if got := model.OriginOf(u); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}
