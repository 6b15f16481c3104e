package fetch_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/robots"
)

func TestGuardRefusesPrivateNamesWithoutConnecting(t *testing.T) {
	for _, addr := range []string{"10.0.0.1", "127.0.0.1", "::1", "169.254.169.254", "100.64.1.1", "fd00::1", "::ffff:192.168.1.1"} {
		t.Run(addr, func(t *testing.T) {
			r := newRig(t, false, nil)
			r.web.Resolve("intranet.example", netip.MustParseAddr(addr))
			res := r.get("http://intranet.example/feed", fetch.PurposeFeed)
			// robots.txt could not be read: nothing else is tried either.
			want(t, res, fetch.OutcomeDisallowed)
			if res.Robots != robots.StateUnreachable {
				t.Errorf("robots state %s", res.Robots)
			}
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
		want(t, r.get(u, fetch.PurposePage), fetch.OutcomeDisallowed)
	}
	if n := r.web.Dials(""); n != 0 {
		t.Errorf("%d dials attempted", n)
	}
}

func TestAllowPrivateLetsItThrough(t *testing.T) {
	r := newRig(t, false, func(s *config.Settings, _ *fetch.Options) { s.AllowPrivate = true })
	r.web.Resolve("intranet.example", netip.MustParseAddr("10.0.0.1"))
	r.get("http://intranet.example/", fetch.PurposePage)
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

// A configured proxy is trusted, even on loopback, while the guard stays on.
func TestProxyIsTrusted(t *testing.T) {
	var seen atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		if r.URL.Host != "behind.example" {
			http.Error(w, "wrong host", http.StatusBadGateway)
			return
		}
		if r.URL.Path == "/robots.txt" {
			_, _ = w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) { o.Proxy = http.ProxyURL(pu) })
	want(t, r.get("http://behind.example/p", fetch.PurposePage), fetch.OutcomeFetched)
	if seen.Load() != 2 {
		t.Errorf("proxy saw %d requests", seen.Load())
	}
}
