package fetch_test

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/fetch"
)

// inetAton reads s as the C library's inet_aton does (and many proxies
// with it): one to four parts, each decimal, 0x hex or 0 octal, the last
// filling the remaining bytes. It is the reference the name rule must
// cover: a host it reads as an address must never reach a proxy as a name.
func inetAton(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return false
	}
	for i, p := range parts {
		base := 10
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			p, base = p[2:], 16
			if p == "" {
				p = "0" // glibc reads "0x" as 0
			}
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		if p == "" {
			return false
		}
		bits := 8
		if i == len(parts)-1 {
			bits = 8 * (5 - len(parts))
		}
		if _, err := strconv.ParseUint(p, base, bits); err != nil {
			return false
		}
	}
	return true
}

// FuzzRefusedName: a host name from a feed, a link or a redirect that an
// address parser would read as an address, other than an address in its
// usual form (judged by Refused), is refused by its name; and ASCII case
// does not change the verdict (other scripts' case mappings are IDNA's,
// which the guard applies before judging: hostForms).
func FuzzRefusedName(f *testing.F) {
	for _, s := range []string{"blog.example", "127.1", "0x7f.1", "2130706433", "017700000001", "10.1.1", "127.0.0.1",
		"127.0.0.1.", "intranet", "nas.lan", "example.0x", "1.2.3.4.5", "::1", "a..b", "", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		refused := fetch.RefusedName(host)
		h := strings.TrimSuffix(host, ".")
		if _, err := netip.ParseAddr(h); err != nil && inetAton(h) && !refused {
			t.Errorf("%q reads as an address to inet_aton, and its name is not refused", host)
		}
		if ascii(host) && refused != fetch.RefusedName(strings.ToUpper(host)) {
			t.Errorf("%q: the verdict changes with case", host)
		}
	})
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
