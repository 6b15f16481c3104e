package fetch_test

import (
	"net/url"
	"testing"

	"corpus.blog/corpusbot/internal/fetch"
)

// RefusedHost judges a URL's host as the guard does, without a lookup.
func TestRefusedHost(t *testing.T) {
	for _, c := range []struct {
		url     string
		refused bool
		why     string
	}{
		{"http://127.0.0.1/", true, "a loopback address"},
		{"http://127.9.9.9:8080/", true, "a loopback address"},
		{"http://[::1]/", true, "a loopback address"},
		{"http://[::ffff:127.0.0.1]/", true, "a loopback address"},
		{"http://10.1.2.3/", true, "a private address"},
		{"http://192.168.0.1/", true, "a private address"},
		{"http://172.16.5.4/", true, "a private address"},
		{"http://[fd00::1]/", true, "a private address"},
		{"http://169.254.169.254/", true, "a link-local address"},
		{"http://[fe80::1%25eth0]/", true, "a link-local address"},
		{"http://0.0.0.0/", true, "the unspecified address"},
		{"http://[::]/", true, "the unspecified address"},
		{"http://100.64.0.1/", true, "an address reserved for non-public use"},
		{"http://[64:ff9b::a00:1]/", true, "an address reserved for non-public use"}, // NAT64 of 10.0.0.1
		{"http://localhost/", true, "a name no public site has"},
		{"http://app.localhoſt/", true, "a name no public site has"}, // long s: app.localhost once mapped
		{"http://１２７.０.０.１/", true, "a loopback address"},            // fullwidth digits: 127.0.0.1 once mapped
		{"http://LOCALHOST./", true, "a name no public site has"},
		{"http://printer.local/", true, "a name no public site has"},
		{"http://db.internal:5432/", true, "a name no public site has"},
		{"http://app.localhost/", true, "a name no public site has"},
		{"http://nas.home.arpa/", true, "a name no public site has"},
		{"http://203.0.113.30/", false, ""},
		{"http://8.8.8.8/", false, ""},
		{"http://[2606:4700::1]/", false, ""},
		{"https://blog.example/", false, ""},
		{"https://localhost.example.com/", false, ""},
		{"https://internal.example/", false, ""},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		refused, why := fetch.RefusedHost(u.Hostname())
		if refused != c.refused || why != c.why {
			t.Errorf("RefusedHost(%q) = %v, %q; want %v, %q", u.Hostname(), refused, why, c.refused, c.why)
		}
	}
}
