package main

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

type fakeResolver struct {
	ptr map[string][]string
	fwd map[string][]netip.Addr
}

func (f fakeResolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	if n, ok := f.ptr[addr]; ok {
		return n, nil
	}
	return nil, errors.New("no such host")
}

func (f fakeResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := f.fwd[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func TestVerifyCommand(t *testing.T) {
	dns := fakeResolver{
		ptr: map[string][]string{"203.0.113.7": {"crawl-7.corpus.blog."}, "203.0.113.8": {"crawl-8.corpus.blog."}, "198.51.100.1": {"bot.other.example."}},
		fwd: map[string][]netip.Addr{"crawl-7.corpus.blog": {netip.MustParseAddr("203.0.113.7")}, "crawl-8.corpus.blog": {netip.MustParseAddr("203.0.113.80")}, "bot.other.example": {netip.MustParseAddr("198.51.100.1")}},
	}
	cases := []struct {
		args    []string
		env     map[string]string
		code    int
		verdict string
	}{
		{[]string{"203.0.113.7"}, nil, 0, "VERIFIED 203.0.113.7 is crawl-7.corpus.blog"},
		{[]string{"203.0.113.8"}, nil, exitFailure, "NOT VERIFIED 203.0.113.8: forward lookup of crawl-8.corpus.blog does not include 203.0.113.8"},
		{[]string{"198.51.100.1"}, nil, exitFailure, "NOT VERIFIED 198.51.100.1: reverse name bot.other.example is not under corpus.blog"},
		{[]string{"--verify-domain", "other.example", "198.51.100.1"}, nil, 0, "VERIFIED 198.51.100.1"},
		// --domain, the former name, still works.
		{[]string{"--domain", "other.example", "198.51.100.1"}, nil, 0, "VERIFIED 198.51.100.1"},
		{[]string{"--domain", "corpus.blog", "198.51.100.1"}, nil, exitFailure, "NOT VERIFIED 198.51.100.1"},
		{[]string{"198.51.100.1"}, map[string]string{"CORPUSBOT_USER_AGENT": "CorpusBot/1.0 (+https://other.example/bot)"}, 0, "VERIFIED 198.51.100.1"},
		{[]string{"192.0.2.1"}, nil, exitFailure, "NOT VERIFIED 192.0.2.1: reverse lookup failed"},
		{[]string{"not-an-ip"}, nil, exitUsage, ""},
		{[]string{}, nil, exitUsage, ""},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		env := environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, lookupEnv: func(k string) (string, bool) {
			v, ok := c.env[k]
			return v, ok
		}}
		err := verifyIP(env, c.args, dns)
		code := 0
		var ee *exitError
		switch {
		case errors.As(err, &ee):
			code = ee.code
		case err != nil:
			code = exitFailure
		}
		if code != c.code || !strings.HasPrefix(out.String(), c.verdict) || (c.verdict != "" && strings.Count(out.String(), "\n") != 1) {
			t.Errorf("verify %v: code %d, out %q, err %v; want %d %q", c.args, code, out.String(), err, c.code, c.verdict)
		}
	}
	// Through the command table: wired, with help naming the flag as serve
	// does, and not its former name.
	if out, _, code := runCLI(t, nil, nil, "verify", "--help"); code != 0 || !strings.Contains(out, "forward-confirmed") ||
		!strings.Contains(out, "\n  -verify-domain domains\n") || strings.Contains(out, "\n  -domain") {
		t.Errorf("help: %d %q", code, out)
	}
	if _, errOut, code := runCLI(t, nil, nil, "verify", "300.1.1.1"); code != exitUsage || !strings.Contains(errOut, "not an IP address") {
		t.Errorf("bad IP: %d %q", code, errOut)
	}
}

// TestOneFlagNamePerConcept reads every command's --help: a flag's help
// text names one concept, so two flags with the same help must have the
// same name, whichever commands they are on.
func TestOneFlagNamePerConcept(t *testing.T) {
	nameOf := map[string]string{} // usage → "command: -flag"
	for _, c := range commands() {
		out, _, code := runCLI(t, nil, nil, append(strings.Fields(c.name), "--help")...)
		if code != 0 {
			t.Fatalf("%s --help: %d", c.name, code)
		}
		for name, usage := range helpFlags(out) {
			if prev, ok := nameOf[usage]; ok && !strings.HasSuffix(prev, ": -"+name) {
				t.Errorf("%s: -%s has the help of %s: %q", c.name, name, prev, usage)
			}
			nameOf[usage] = c.name + ": -" + name
		}
	}
	for _, cmd := range []string{"serve", "verify"} {
		out, _, _ := runCLI(t, nil, nil, cmd, "--help")
		if _, ok := helpFlags(out)["verify-domain"]; !ok {
			t.Errorf("%s --help lacks -verify-domain", cmd)
		}
	}
}

// helpFlags reads the flags a --help lists (flag.PrintDefaults' layout:
// "  -name arg" then the usage indented by a tab), usage without its
// "(default ...)".
func helpFlags(help string) map[string]string {
	flags := map[string]string{}
	_, list, _ := strings.Cut(help, "\nFlags:\n")
	name := ""
	for _, line := range strings.Split(list, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			name = strings.Fields(line)[0][1:]
			flags[name] = ""
		case strings.HasPrefix(line, "    \t") && name != "":
			usage := strings.TrimPrefix(line, "    \t")
			if i := strings.LastIndex(usage, " (default "); i >= 0 {
				usage = usage[:i]
			}
			flags[name] = strings.TrimSpace(flags[name] + " " + usage)
		}
	}
	return flags
}
