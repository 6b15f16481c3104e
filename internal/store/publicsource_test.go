package store

import "testing"

// A source's stored discovery failure is shown publicly with its step and
// a known reason; any other text (a URL, an address, a library's words)
// is "other".
func TestPublicSourceError(t *testing.T) {
	for _, tc := range []struct{ stored, want string }{
		{"", ""},
		{"robots.txt unreachable", "robots.txt unreachable"},
		{"robots.txt unreachable: DNS failure", "robots.txt unreachable: DNS failure"},
		{"robots.txt unreachable: status 503", "robots.txt unreachable: status 503"},
		{"robots.txt: robots.txt unreachable: connection reset", "robots.txt: robots.txt unreachable: connection reset"},
		{"homepage: timeout", "homepage: timeout"},
		{"well-known feed paths: status 502", "well-known feed paths: status 502"},
		{"homepage: waiting for blog.example", "homepage: other"},
		{"homepage: dial tcp 10.0.0.1:443: i/o timeout", "homepage: other"},
		{"lookup secret.internal on 10.0.0.53: no such host", "other"},
	} {
		if got := PublicSourceError(tc.stored); got != tc.want {
			t.Errorf("PublicSourceError(%q) = %q, want %q", tc.stored, got, tc.want)
		}
	}
}
