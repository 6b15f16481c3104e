package verify

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// fakeDNS answers from maps and fails for anything else, as an NXDOMAIN would.
type fakeDNS struct {
	ptr map[string][]string
	fwd map[string][]netip.Addr
}

func (f fakeDNS) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	if n, ok := f.ptr[addr]; ok {
		return n, nil
	}
	return nil, errors.New("lookup " + addr + ": no such host")
}

func (f fakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, a := range f.fwd[host] {
		if network == "ip" || (network == "ip4") == a.Is4() {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("lookup " + host + ": no such host")
	}
	return out, nil
}

func TestCheck(t *testing.T) {
	ip := netip.MustParseAddr
	dns := fakeDNS{
		ptr: map[string][]string{
			"203.0.113.7":  {"crawl-7.corpus.blog."},
			"203.0.113.8":  {"crawl-8.corpus.blog."},           // forward answers another address
			"203.0.113.9":  {"crawl-9.corpus.blog."},           // forward missing
			"198.51.100.1": {"fake.corpus.blog.evil.example."}, // domain not allowed
			"198.51.100.2": {"xcorpus.blog."},                  // suffix without the dot
			"198.51.100.3": {},
			"2001:db8::7":  {"CRAWL-V6.Corpus.Blog."},
			"203.0.113.10": {"other.example.", "crawl-10.corpus.blog."},
		},
		fwd: map[string][]netip.Addr{
			"crawl-7.corpus.blog":           {ip("203.0.113.70"), ip("203.0.113.7")},
			"crawl-8.corpus.blog":           {ip("203.0.113.80")},
			"crawl-v6.corpus.blog":          {ip("2001:db8::7")},
			"crawl-10.corpus.blog":          {ip("203.0.113.10")},
			"fake.corpus.blog.evil.example": {ip("198.51.100.1")},
			"xcorpus.blog":                  {ip("198.51.100.2")},
		},
	}
	cases := []struct {
		ip       string
		verified bool
		reason   string
	}{
		{"203.0.113.7", true, ""},
		{"::ffff:203.0.113.7", true, ""},
		{"2001:db8::7", true, ""},
		{"203.0.113.10", true, ""},
		{"203.0.113.8", false, "forward lookup of crawl-8.corpus.blog does not include 203.0.113.8"},
		{"203.0.113.9", false, "forward lookup failed"},
		{"198.51.100.1", false, "is not under corpus.blog"},
		{"198.51.100.2", false, "is not under corpus.blog"},
		{"198.51.100.3", false, "no reverse DNS name"},
		{"192.0.2.99", false, "reverse lookup failed"},
	}
	for _, c := range cases {
		res, err := Check(context.Background(), dns, ip(c.ip), []string{"Corpus.Blog."})
		if err != nil {
			t.Fatalf("%s: %v", c.ip, err)
		}
		if res.Verified != c.verified || !strings.Contains(res.Reason, c.reason) {
			t.Errorf("%s: verified %v reason %q; want %v %q", c.ip, res.Verified, res.Reason, c.verified, c.reason)
		}
		v := res.Verdict()
		if c.verified != strings.HasPrefix(v, "VERIFIED ") || !strings.Contains(v, ip(c.ip).Unmap().String()) {
			t.Errorf("%s: verdict %q", c.ip, v)
		}
	}
	if _, err := Check(context.Background(), dns, ip("203.0.113.7"), []string{" ", ""}); err == nil {
		t.Error("no domain accepted")
	}
	// Several domains: any one matches.
	res, _ := Check(context.Background(), dns, ip("198.51.100.1"), []string{"corpus.blog", "evil.example"})
	if !res.Verified {
		t.Errorf("second domain not used: %+v", res)
	}
}

func TestUserAgentDomain(t *testing.T) {
	for ua, want := range map[string]string{
		"CorpusBot/1.0 (+https://corpus.blog/crawler)":                     "corpus.blog",
		"Mozilla/5.0 (compatible; ArgandBot/1.0; +https://argand.org/bot)": "argand.org",
		"X/1 (+http://Bots.Example:8080/x)":                                "bots.example",
		"X/1":                                                              "",
		"X/1 (+ftp://a.example)":                                           "",
	} {
		if got := UserAgentDomain(ua); got != want {
			t.Errorf("UserAgentDomain(%q) = %q, want %q", ua, got, want)
		}
	}
}
