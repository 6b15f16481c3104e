package fetch_test

import (
	"net/netip"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

func TestGuardRefusesPrivateNamesWithoutConnecting(t *testing.T) {
	for _, addr := range []string{"10.0.0.1", "127.0.0.1", "::1", "169.254.169.254", "100.64.1.1", "fd00::1", "::ffff:192.168.1.1",
		"64:ff9b::a9fe:a9fe", "2002:a00:1::1", "::10.0.0.1", "2001:0:4136:e378:8000:63bf:f5ff:fffe", "fe80::1%eth0"} {
		t.Run(addr, func(t *testing.T) {
			r := newRig(t, false, nil)
			r.web.Resolve("intranet.example", netip.MustParseAddr(addr))
			res := r.get("http://intranet.example/feed", model.PurposeFeed)
			// robots.txt was refused by the guard: nothing else is tried either.
			refusedByGuard(t, res)
			recs := r.records()
			if len(recs) == 0 || !isErr(recs[0].Err, fetch.ErrPrivateAddress) {
				t.Errorf("first record %+v, want the guard's refusal", recs)
			}
			if n := r.web.Dials(""); n != 0 {
				t.Errorf("%d dials attempted", n)
			}
		})
	}
}

func TestGuardRefusesPrivateLiterals(t *testing.T) {
	r := newRig(t, false, nil)
	for _, u := range []string{"http://127.0.0.1/", "http://[::1]:8080/", "http://10.1.2.3/x", "http://0.0.0.0/"} {
		refusedByGuard(t, r.get(u, model.PurposePage))
	}
	if n := r.web.Dials(""); n != 0 {
		t.Errorf("%d dials attempted", n)
	}
}

func TestAllowPrivateLetsItThrough(t *testing.T) {
	r := newRig(t, false, func(s *config.Settings, _ *fetch.Options) { s.AllowPrivate = true })
	r.web.Resolve("intranet.example", netip.MustParseAddr("10.0.0.1"))
	r.get("http://intranet.example/", model.PurposePage)
	if n := r.web.Dials("10.0.0.1:80"); n == 0 {
		t.Error("ALLOW_PRIVATE: no dial attempted")
	}
}

func TestRefusedAddresses(t *testing.T) {
	refused := []string{"0.0.0.0", "10.0.0.1", "100.64.0.1", "100.127.255.254", "127.0.0.1", "127.1.2.3", "169.254.169.254",
		"172.16.0.1", "172.31.255.255", "192.168.0.1", "224.0.0.1", "255.255.255.255", "::", "::1", "fc00::1", "fdff::1",
		"fe80::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"}
	allowed := []string{"8.8.8.8", "1.1.1.1", "203.0.113.10", "100.128.0.1", "172.32.0.1", "2001:4860:4860::8888", "2606:4700::1111"}
	for _, a := range refused {
		if !fetch.Refused(netip.MustParseAddr(a)) {
			t.Errorf("%s not refused", a)
		}
	}
	for _, a := range allowed {
		if fetch.Refused(netip.MustParseAddr(a)) {
			t.Errorf("%s refused", a)
		}
	}
}

// Each IPv6 form that carries an IPv4 address is judged by the address it
// carries: private inside is refused, public inside is not.
func TestRefusedEmbeddedIPv4(t *testing.T) {
	for _, tc := range []struct {
		form             string
		refused, allowed []string
	}{
		{"IPv4-mapped ::ffff:0:0/96",
			[]string{"::ffff:10.0.0.1", "::ffff:127.0.0.1", "::ffff:169.254.169.254"},
			[]string{"::ffff:8.8.8.8", "::ffff:203.0.113.10"}},
		{"IPv4-compatible ::/96",
			[]string{"::10.0.0.1", "::127.0.0.1", "::169.254.169.254", "::192.168.1.1", "::a00:1", "::0.0.0.2"},
			[]string{"::8.8.8.8", "::203.0.113.10"}},
		{"IPv4-translated ::ffff:0:0:0/96",
			[]string{"::ffff:0:10.0.0.1", "::ffff:0:127.0.0.1", "::ffff:0:169.254.169.254"},
			[]string{"::ffff:0:8.8.8.8"}},
		{"NAT64 64:ff9b::/96",
			[]string{"64:ff9b::10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b::100.64.0.1", "64:ff9b::c0a8:101"},
			[]string{"64:ff9b::8.8.8.8", "64:ff9b::cb00:710a"}},
		{"local-use NAT64 64:ff9b:1::/48, refused whole",
			[]string{"64:ff9b:1::8.8.8.8", "64:ff9b:1:ffff::1"},
			nil},
		{"6to4 2002::/16",
			[]string{"2002:a00:1::1", "2002:a9fe:a9fe::1", "2002:7f00:1::", "2002:c0a8:101:1::1", "2002:ac10:1::1"},
			[]string{"2002:808:808::1", "2002:cb00:710a:1::1"}},
		{"Teredo 2001::/32, client inverted",
			// RFC 4380's example, server 65.54.227.120, client 192.0.2.45; then
			// a client at 10.0.0.1 (inverted f5ff:fffe), at 169.254.169.254
			// (5601:5601), and a server at 10.0.0.1.
			[]string{"2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:0:4136:e378:8000:63bf:5601:5601", "2001:0:a00:1:8000:63bf:3fff:fdd2"},
			[]string{"2001:0:4136:e378:8000:63bf:3fff:fdd2"}},
		{"zoned addresses, judged without the zone",
			[]string{"fe80::1%eth0", "::1%lo", "fd00::1%1", "::ffff:10.0.0.1%eth0"},
			[]string{"2606:4700::1111%eth0"}},
	} {
		t.Run(tc.form, func(t *testing.T) {
			for _, a := range tc.refused {
				if !fetch.Refused(netip.MustParseAddr(a)) {
					t.Errorf("%s not refused", a)
				}
			}
			for _, a := range tc.allowed {
				if fetch.Refused(netip.MustParseAddr(a)) {
					t.Errorf("%s refused", a)
				}
			}
		})
	}
}

func TestRefusedName(t *testing.T) {
	refused := []string{"localhost", "LOCALHOST", "localhost.", "app.localhost", "printer.local", "printer.local.",
		"metadata.google.internal", "db.Internal", "router.home.arpa", "local", "internal",
		"mylocal", "notlocalhost", "arpa"} // single labels: completed by the local search domains
	allowed := []string{"blog.example", "localhost.example", "mylocal.example", "local.example.com", "internal.example.org",
		"notlocalhost.example", "home.arpa.example", "arpa.example"}
	for _, h := range refused {
		if !fetch.RefusedName(h) {
			t.Errorf("%s not refused", h)
		}
	}
	for _, h := range allowed {
		if fetch.RefusedName(h) {
			t.Errorf("%s refused", h)
		}
	}
}

// A local name is refused without a lookup, with no proxy too: even when
// the resolver says it is public.
func TestGuardRefusesLocalNamesWithoutLookup(t *testing.T) {
	for _, name := range []string{"localhost", "app.localhost", "printer.local", "metadata.internal", "nas.home.arpa"} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, false, nil)
			h := r.web.Host(name) // resolves to the public simulated address
			h.Robots("User-agent: *\nAllow: /\n")
			h.Put("/", "text/html", "<html></html>")
			res := r.get(h.URL("/"), model.PurposePage)
			refusedByGuard(t, res)
			if recs := r.records(); len(recs) == 0 || !isErr(recs[0].Err, fetch.ErrPrivateAddress) {
				t.Errorf("records %+v, want the guard's refusal first", recs)
			}
			if n := r.web.Dials(""); n != 0 {
				t.Errorf("%d dials attempted", n)
			}
			a := newRig(t, false, func(s *config.Settings, _ *fetch.Options) { s.AllowPrivate = true })
			ha := a.web.Host(name)
			ha.Robots("User-agent: *\nAllow: /\n")
			ha.Put("/", "text/html", "<html></html>")
			want(t, a.get(ha.URL("/"), model.PurposePage), model.OutcomeFetched)
		})
	}
}

// FuzzRefused judges any IPv6 address and each IPv4-carrying form built
// around its last four bytes: a form is refused exactly when the IPv4
// address it carries is (for Teredo, when either of its two is), and a
// zone changes nothing.
func FuzzRefused(f *testing.F) {
	for _, s := range []string{"::1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2002:a00:1::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
		"fe80::1", "2606:4700::1111", "::8.8.8.8"} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a16 [16]byte
		copy(a16[:], b)
		a := netip.AddrFrom16(a16)
		if fetch.Refused(a) != fetch.Refused(a.WithZone("eth0")) {
			t.Fatalf("%s: a zone changes the verdict", a)
		}
		v4 := netip.AddrFrom4([4]byte(a16[12:]))
		inner := fetch.Refused(v4)
		form := func(prefix [12]byte) netip.Addr {
			var x [16]byte
			copy(x[:], prefix[:])
			copy(x[12:], a16[12:])
			return netip.AddrFrom16(x)
		}
		for name, prefix := range map[string][12]byte{
			"IPv4-mapped":     {10: 0xff, 11: 0xff},
			"IPv4-compatible": {},
			"IPv4-translated": {8: 0xff, 9: 0xff},
			"NAT64":           {0: 0x00, 1: 0x64, 2: 0xff, 3: 0x9b},
		} {
			if got := fetch.Refused(form(prefix)); got != inner {
				t.Fatalf("%s %s: refused %v, the IPv4 %s %v", name, form(prefix), got, v4, inner)
			}
		}
		sixToFour := a16
		sixToFour[0], sixToFour[1] = 0x20, 0x02
		copy(sixToFour[2:6], a16[12:])
		if got := fetch.Refused(netip.AddrFrom16(sixToFour)); got != inner {
			t.Fatalf("6to4 %s: refused %v, the IPv4 %s %v", netip.AddrFrom16(sixToFour), got, v4, inner)
		}
		teredo := a16
		teredo[0], teredo[1], teredo[2], teredo[3] = 0x20, 0x01, 0, 0
		server := netip.AddrFrom4([4]byte(teredo[4:8]))
		client := [4]byte(teredo[12:16])
		for i := range client {
			client[i] ^= 0xff
		}
		if got, want := fetch.Refused(netip.AddrFrom16(teredo)), fetch.Refused(server) || fetch.Refused(netip.AddrFrom4(client)); got != want {
			t.Fatalf("Teredo %s: refused %v, want %v", netip.AddrFrom16(teredo), got, want)
		}
	})
}
