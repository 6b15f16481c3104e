package urlkey_test

import (
	"net/url"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/urlkey"
)

// FuzzKey checks what every key promises whatever the input: Key does not
// panic; a key is its own key; it parses as an http(s) URL with a host, no
// user information, no fragment, no tracking parameter and no empty query;
// it belongs to the site its URL belongs to; and Canonical, Variants and
// Respell keep keys keys.
func FuzzKey(f *testing.F) {
	for _, c := range keyCases {
		f.Add(c.in, "../x")
	}
	f.Add("https://www.example.com/a/?utm_source=x&b=%2f#f", "//example.com/a")
	f.Add("http://[::1]:80/%2e%2E/a", "?q=1")
	f.Fuzz(func(t *testing.T, raw, href string) {
		key, err := urlkey.Key(raw)
		if err != nil {
			return
		}
		again, err := urlkey.Key(key)
		if err != nil || again != key {
			t.Fatalf("Key(%q) = %q, but Key(%q) = %q, %v", raw, key, key, again, err)
		}
		u, err := url.Parse(key)
		if err != nil {
			t.Fatalf("key %q of %q does not parse: %v", key, raw, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil ||
			strings.Contains(key, "#") || u.ForceQuery {
			t.Fatalf("key %q of %q is not a clean http(s) URL", key, raw)
		}
		if u.RawQuery != "" {
			for param := range strings.SplitSeq(u.RawQuery, "&") {
				name, _, _ := strings.Cut(param, "=")
				if param == "" || urlkey.IsTrackingParameter(name) {
					t.Fatalf("key %q of %q keeps parameter %q", key, raw, param)
				}
			}
		}
		if in, out := model.SiteOfURL(strings.Trim(raw, " \t\n\r\f")), model.SiteOfURL(key); in != out {
			t.Fatalf("key %q is on site %q, its URL %q on %q", key, out, raw, in)
		}
		if urlkey.VariantClass(key) == key {
			t.Fatalf("key %q is not split as a key", key)
		}
		if v, ok := urlkey.Variants(key, key); !ok || v != 0 {
			t.Fatalf("Variants(%q, itself) = %v, %v", key, v, ok)
		}
		all := urlkey.Scheme | urlkey.WWW | urlkey.TrailingSlash
		if r := urlkey.Respell(key, all, "https://www.example.com/feed/"); r != key {
			if k, err := urlkey.Key(r); err != nil || k != r {
				t.Fatalf("Respell(%q) = %q, not a key", key, r)
			}
			if _, ok := urlkey.Variants(key, r); !ok {
				t.Fatalf("Respell(%q) = %q, not a variant of it", key, r)
			}
		}
		if c, err := urlkey.Canonical(key, href); err == nil {
			if k, err := urlkey.Key(c); err != nil || k != c {
				t.Fatalf("Canonical(%q, %q) = %q, not a key", key, href, c)
			}
		}
	})
}
