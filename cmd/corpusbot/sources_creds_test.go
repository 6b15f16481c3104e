package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sources add refuses a URL with user information or a bad port, without
// repeating a password and without adding any of the other arguments;
// a host the guard will refuse is added with a warning, and without one
// when ALLOW_PRIVATE is on.
func TestSourcesAddRefusesAndWarns(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a part of stderr; "" for none expected
		added  []string
	}{
		{"password", []string{"http://u:s3cret@203.0.113.30/"}, exitUsage, "user name or password", nil},
		{"user", []string{"https://u@a.example/"}, exitUsage, "add https://a.example/ instead", nil},
		{"empty userinfo", []string{"https://@a.example/"}, exitUsage, "user name or password", nil},
		{"one bad of two", []string{"https://a.example/", "http://u:s3cret@b.example/"}, exitUsage, "user name or password", nil},
		{"port 0", []string{"http://x.example:0/"}, exitUsage, `invalid port "0"`, nil},
		{"port 99999", []string{"http://x.example:99999/"}, exitUsage, "from 1 to 65535", nil},
		{"port abc", []string{"http://x.example:abc/"}, exitUsage, "invalid port", nil},
		{"loopback", []string{"http://127.0.0.1/"}, 0, "127.0.0.1 is a loopback address", []string{"http://127.0.0.1/"}},
		{"private", []string{"http://10.0.0.8:8080/"}, 0, "a private address", []string{"http://10.0.0.8:8080/"}},
		{"link-local", []string{"http://[fe80::1]/"}, 0, "a link-local address", []string{"http://[fe80::1]/"}},
		{"local name", []string{"https://wiki.internal"}, 0, "a name no public site has", []string{"https://wiki.internal/"}},
		{"localhost", []string{"http://localhost:8080/"}, 0, "ALLOW_PRIVATE is off", []string{"http://localhost:8080/"}},
		{"public", []string{"http://203.0.113.30/", "https://blog.example"}, 0, "", []string{"http://203.0.113.30/", "https://blog.example/"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "c.db")
			env := map[string]string{"CORPUSBOT_DB": db}
			_, errOut, code := runCLI(t, nil, env, append([]string{"sources", "add"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errOut)
			}
			if c.stderr == "" && errOut != "" || !strings.Contains(errOut, c.stderr) {
				t.Errorf("stderr %q, want %q", errOut, c.stderr)
			}
			if strings.Contains(errOut, "s3cret") {
				t.Errorf("stderr repeats the password: %q", errOut)
			}
			if c.code != 0 {
				if _, err := os.Stat(db); err == nil {
					if got := storedSources(t, db); len(got) != 0 {
						t.Errorf("stored %q after a refusal", got)
					}
				}
				return
			}
			if got := storedSources(t, db); strings.Join(got, " ") != strings.Join(c.added, " ") {
				t.Errorf("stored %q, want %q", got, c.added)
			}
		})
	}
	// ALLOW_PRIVATE on: no warning.
	env := map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "p.db"), "CORPUSBOT_ALLOW_PRIVATE": "true"}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "http://127.0.0.1/"); code != 0 || errOut != "" {
		t.Errorf("with ALLOW_PRIVATE: exit %d, stderr %q", code, errOut)
	}
}

// A list with credentials, bad ports and private hosts: the first two kinds
// rejected line by line (the others still added, exit 0), the last added
// with a warning.
func TestSourcesAddFileRefusesAndWarns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	list := "https://a.example/\nhttp://u:s3cret@b.example/\nhttp://c.example:70000/\nhttp://192.168.1.5/\n"
	out, errOut, code := runCLI(t, strings.NewReader(list), env, "sources", "add", "--file", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `added https://a.example/
rejected line 2: URL carries a user name or password: sources are fetched without credentials and their URLs are published; add http://b.example/ instead if the site is public
rejected line 3: invalid port "70000": a port is a number from 1 to 65535
added http://192.168.1.5/
2 added, 0 known, 2 rejected
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if !strings.Contains(errOut, "192.168.1.5 is a private address") || strings.Count(errOut, "warning") != 1 {
		t.Errorf("stderr %q, want one warning for 192.168.1.5", errOut)
	}
	opml := `<opml><body><outline text="x" htmlUrl="https://u:s3cret@d.example/"/></body></opml>`
	out, _, code = runCLI(t, strings.NewReader(opml), env, "sources", "add", "--file", "-")
	if code != 0 || !strings.Contains(out, "rejected line 1: htmlUrl: URL carries a user name or password") || strings.Contains(out, "s3cret") {
		t.Errorf("OPML: exit %d, output %q", code, out)
	}
	if got := storedSources(t, db); strings.Join(got, " ") != "http://192.168.1.5/ https://a.example/" {
		t.Errorf("stored %q", got)
	}
}
