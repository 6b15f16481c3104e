package clientip

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestParseTrusted(t *testing.T) {
	for _, c := range []struct {
		in, want string // want: the prefixes joined by spaces, or "error"
	}{
		{"", ""},
		{"   ", ""},
		{"10.0.0.0/8", "10.0.0.0/8"},
		{"10.0.0.0/8, 192.168.1.1", "10.0.0.0/8 192.168.1.1/32"},
		{"10.0.0.0/8 ,,  fd00::/8\n::1", "10.0.0.0/8 fd00::/8 ::1/128"},
		{"10.1.2.3/8", "10.0.0.0/8"}, // masked
		{"::ffff:10.0.0.1", "10.0.0.1/32"},
		{"::ffff:10.0.0.0/104", "10.0.0.0/8"},
		{"::ffff:0:0/80", "error"},
		{"fe80::1%eth0", "error"},
		{"10.0.0.0/33", "error"},
		{"proxy.internal", "error"},
		{"10.0.0.1, nonsense", "error"},
	} {
		got, err := ParseTrusted(c.in)
		if c.want == "error" {
			if err == nil {
				t.Errorf("ParseTrusted(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTrusted(%q): %v", c.in, err)
			continue
		}
		var parts []string
		for _, p := range got {
			parts = append(parts, p.String())
		}
		if s := strings.Join(parts, " "); s != c.want {
			t.Errorf("ParseTrusted(%q) = %q, want %q", c.in, s, c.want)
		}
	}
}

func TestClientAddr(t *testing.T) {
	trusted, err := ParseTrusted("10.0.0.0/8, 2001:db8:ffff::/48, 127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	res := Resolver{Trusted: trusted}
	for _, c := range []struct {
		name   string
		remote string
		xff    []string // header lines
		want   string   // "" for the zero Addr
	}{
		{"direct client, no header", "198.51.100.7:5000", nil, "198.51.100.7"},
		{"untrusted peer's header is ignored", "198.51.100.7:5000", []string{"203.0.113.1"}, "198.51.100.7"},
		{"untrusted peer claiming a trusted proxy", "198.51.100.7:5000", []string{"10.0.0.1"}, "198.51.100.7"},
		{"one trusted proxy", "10.0.0.2:443", []string{"203.0.113.1"}, "203.0.113.1"},
		{"trusted proxy without header", "10.0.0.2:443", nil, "10.0.0.2"},
		{"trusted proxy with an empty header", "10.0.0.2:443", []string{""}, "10.0.0.2"},
		{"two trusted hops", "10.0.0.2:443", []string{"203.0.113.1, 10.9.9.9"}, "203.0.113.1"},
		{"client prepends fake entries", "10.0.0.2:443", []string{"1.1.1.1, 10.0.0.99, 203.0.113.1"}, "203.0.113.1"},
		{"client prepends a fake trusted hop after itself", "10.0.0.2:443", []string{"10.0.0.5, 203.0.113.1, 10.0.0.3"}, "203.0.113.1"},
		{"header split over lines", "10.0.0.2:443", []string{"1.1.1.1", "203.0.113.1, 10.0.0.3"}, "203.0.113.1"},
		{"every hop trusted", "10.0.0.2:443", []string{"10.0.0.4, 10.0.0.3"}, "10.0.0.4"},
		{"malformed entry stops at the last good one", "10.0.0.2:443", []string{"203.0.113.1, garbage, 10.0.0.3"}, "10.0.0.3"},
		{"malformed right away", "10.0.0.2:443", []string{"203.0.113.1, unknown"}, "10.0.0.2"},
		{"empty entry is malformed", "10.0.0.2:443", []string{"203.0.113.1,,"}, "10.0.0.2"},
		{"entries with ports", "10.0.0.2:443", []string{"203.0.113.1:5555, 10.0.0.3:80"}, "203.0.113.1"},
		{"IPv6 client", "[2001:db8:ffff::1]:443", []string{"2001:db8:1::42"}, "2001:db8:1::42"},
		{"IPv6 client bracketed with port", "[2001:db8:ffff::1]:443", []string{"[2001:db8:1::42]:9"}, "2001:db8:1::42"},
		{"IPv6 client bracketed", "[2001:db8:ffff::1]:443", []string{"[2001:db8:1::42]"}, "2001:db8:1::42"},
		{"IPv4-mapped peer is trusted as IPv4", "[::ffff:10.0.0.2]:443", []string{"203.0.113.1"}, "203.0.113.1"},
		{"IPv4-mapped client unmapped", "10.0.0.2:443", []string{"::ffff:203.0.113.1"}, "203.0.113.1"},
		{"IPv4-mapped trusted hop skipped", "10.0.0.2:443", []string{"203.0.113.1, ::ffff:10.0.0.3"}, "203.0.113.1"},
		{"untrusted IPv4-mapped peer unmapped", "[::ffff:198.51.100.7]:1", nil, "198.51.100.7"},
		{"zone dropped", "[fe80::1%eth0]:1", nil, "fe80::1"},
		{"loopback trusted as a bare address", "127.0.0.1:1", []string{"203.0.113.1"}, "203.0.113.1"},
		{"loopback neighbour not trusted", "127.0.0.2:1", []string{"203.0.113.1"}, "127.0.0.2"},
		{"RemoteAddr without port", "198.51.100.7", nil, "198.51.100.7"},
		{"RemoteAddr not an address", "@", []string{"203.0.113.1"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.remote
			for _, line := range c.xff {
				r.Header.Add("X-Forwarded-For", line)
			}
			got := res.ClientAddr(r)
			if c.want == "" {
				if got.IsValid() {
					t.Errorf("ClientAddr = %v, want none", got)
				}
				return
			}
			if want := netip.MustParseAddr(c.want); got != want {
				t.Errorf("ClientAddr = %v, want %v", got, want)
			}
		})
	}
}

func TestNoTrustedProxiesIgnoresTheHeader(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.2:443"
	r.Header.Set("X-Forwarded-For", "203.0.113.1")
	if got := (Resolver{}).ClientAddr(r); got != netip.MustParseAddr("10.0.0.2") {
		t.Errorf("ClientAddr with nothing trusted = %v, want the peer", got)
	}
}

func TestClientString(t *testing.T) {
	res := Resolver{Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.2:443"
	r.Header.Set("X-Forwarded-For", "2001:db8::7")
	if got := res.ClientString(r); got != "2001:db8::7" {
		t.Errorf("ClientString = %q", got)
	}
	r.RemoteAddr = "@"
	if got := res.ClientString(r); got != "@" {
		t.Errorf("ClientString of a socket peer = %q, want RemoteAddr", got)
	}
}

// FuzzClientAddr: whatever the header says, the answer is the peer or an
// address the header names, never a trusted proxy chosen by an untrusted
// peer.
func FuzzClientAddr(f *testing.F) {
	f.Add("10.0.0.2:443", "203.0.113.1, 10.0.0.3")
	f.Add("198.51.100.7:1", "10.0.0.1")
	f.Add("[::ffff:10.0.0.2]:443", "[2001:db8::1]:9,,garbage")
	res := Resolver{Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	f.Fuzz(func(t *testing.T, remote, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", xff)
		got := res.ClientAddr(r)
		peer, ok := parseHop(remote)
		if !ok {
			if got.IsValid() {
				t.Fatalf("no peer address, yet %v", got)
			}
			return
		}
		if !res.trusts(peer) && got != peer {
			t.Fatalf("untrusted peer %v taken for %v", peer, got)
		}
		if got.Is4In6() || got.Zone() != "" {
			t.Fatalf("answer %v not unmapped and zoneless", got)
		}
	})
}

// ParseNetworks reads the same lists as ParseTrusted, and names a bad
// entry as a network.
func TestParseNetworks(t *testing.T) {
	got, err := ParseNetworks("127.0.0.0/8,::1/128")
	if err != nil || len(got) != 2 || got[0].String() != "127.0.0.0/8" || got[1].String() != "::1/128" {
		t.Errorf("default: %v %v", got, err)
	}
	if got, err := ParseNetworks(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
	_, err = ParseNetworks("127.0.0.0/8, ::1/129")
	if err == nil || err.Error() != `network "::1/129": want a CIDR prefix or an IP address` {
		t.Errorf("bad prefix: %v", err)
	}
	_, err = ParseTrusted("nonsense")
	if err == nil || !strings.HasPrefix(err.Error(), `trusted proxy "nonsense"`) {
		t.Errorf("ParseTrusted's message: %v", err)
	}
}

// Identified: a request that says it was forwarded is identified only when
// a trusted proxy gave its client in X-Forwarded-For.
func TestIdentified(t *testing.T) {
	trusted, err := ParseTrusted("10.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	res := Resolver{Trusted: trusted}
	for _, c := range []struct {
		name   string
		remote string
		header [2]string // name, value; empty: none
		want   bool
	}{
		{"direct, no header", "203.0.113.9:1", [2]string{}, true},
		{"loopback, no header", "127.0.0.1:1", [2]string{}, true},
		{"untrusted peer with XFF", "127.0.0.1:1", [2]string{"X-Forwarded-For", "203.0.113.9"}, false},
		{"untrusted peer with X-Real-IP", "127.0.0.1:1", [2]string{"X-Real-IP", "203.0.113.9"}, false},
		{"untrusted peer with Forwarded", "127.0.0.1:1", [2]string{"Forwarded", "for=203.0.113.9"}, false},
		{"trusted peer with XFF", "10.0.0.2:1", [2]string{"X-Forwarded-For", "203.0.113.9"}, true},
		{"trusted peer with Forwarded only", "10.0.0.2:1", [2]string{"Forwarded", "for=203.0.113.9"}, false},
		{"trusted peer, no header", "10.0.0.2:1", [2]string{}, true},
		{"peer not an address", "@", [2]string{"X-Forwarded-For", "127.0.0.1"}, false},
	} {
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.RemoteAddr = c.remote
		if c.header[0] != "" {
			r.Header.Set(c.header[0], c.header[1])
		}
		if got := res.Identified(r); got != c.want {
			t.Errorf("%s: Identified = %v, want %v", c.name, got, c.want)
		}
	}
}
