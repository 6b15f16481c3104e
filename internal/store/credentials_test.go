package store

import (
	"net/url"
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	for in, want := range map[string]string{
		"http://u:pw@a.example/":                          "http://a.example/",
		"HTTPS://U@a.example:8443/x?y#z":                  "HTTPS://a.example:8443/x?y#z",
		"http://@a.example/":                              "http://a.example/",
		"http://u@h@a.example/":                           "http://a.example/",
		"http://u:p'w@a.example":                          "http://a.example",
		"https://medium.example/@writer":                  "https://medium.example/@writer",
		"https://a.example/?to=http://u:pw@b.example/":    "https://a.example/?to=http://b.example/",
		`fetch "http://u:***@a.example/x": status 500`:    `fetch "http://a.example/x": status 500`,
		"fetch http://a.example: write to me@example.org": "fetch http://a.example: write to me@example.org",
		"mailto:me@example.org":                           "mailto:me@example.org",
		"":                                                "",
	} {
		if got := scrub(in); got != want {
			t.Errorf("scrub(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzScrub: whatever the text, scrub is idempotent, and an http(s) URL
// with user information comes out as the same URL without it.
func FuzzScrub(f *testing.F) {
	for _, s := range []string{"http://u:pw@a.example/", "https://medium.example/@writer", "HTTP://a@b@c/d", "fetch \"http://u:***@x/\"", "http://[::1]:80/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := scrub(s)
		if twice := scrub(once); twice != once {
			t.Fatalf("scrub(%q) = %q, scrubbed again %q", s, once, twice)
		}
		u, err := url.Parse(s)
		if err != nil || u.User == nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Opaque != "" || !strings.Contains(s, "://") {
			return
		}
		v, err := url.Parse(once)
		if err != nil {
			t.Fatalf("scrub(%q) = %q, which does not parse: %v", s, once, err)
		}
		u.User = nil
		if v.User != nil || v.String() != u.String() {
			t.Fatalf("scrub(%q) = %q, want %q", s, once, u.String())
		}
	})
}
