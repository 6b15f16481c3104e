package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, stdin io.Reader, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	e := environment{stdin: stdin, stdout: &out, stderr: &errOut, lookupEnv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}}
	code = run(e, args)
	return out.String(), errOut.String(), code
}

func writeRobots(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "robots.txt")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const sampleRobots = "User-agent: *\nDisallow: /\n\nUser-agent: CorpusBot\nDisallow: /x\nAllow: /x/open\n"

func TestRobotsCheck(t *testing.T) {
	file := writeRobots(t, sampleRobots)
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		stdin    string
		wantOut  string
		wantErr  string
		wantCode int
	}{
		{"text", []string{"robots", "check", file, "https://a.example/x/1", "https://a.example/y"}, nil, "",
			"DISALLOWED https://a.example/x/1\nALLOWED https://a.example/y\n", "", 0},
		{"json", []string{"robots", "check", "--json", file, "https://a.example/x/open/1", "https://a.example/y?q=<&>"}, nil, "",
			`{"url":"https://a.example/x/open/1","allowed":true,"rule":"Allow: /x/open","line":6}` + "\n" +
				`{"url":"https://a.example/y?q=<&>","allowed":true,"rule":"","line":0}` + "\n", "", 0},
		{"flags after arguments", []string{"robots", "check", file, "/x", "--json"}, nil, "",
			`{"url":"/x","allowed":false,"rule":"Disallow: /x","line":5}` + "\n", "", 0},
		{"colon form", []string{"robots:check", file, "/x"}, nil, "", "DISALLOWED /x\n", "", 0},
		{"other agent", []string{"robots", "check", "--agent", "OtherBot", file, "/y"}, nil, "", "DISALLOWED /y\n", "", 0},
		{"agent from USER_AGENT", []string{"robots", "check", file, "/y"}, map[string]string{"CORPUSBOT_USER_AGENT": "OtherBot/2.0"}, "", "DISALLOWED /y\n", "", 0},
		{"stdin in order", []string{"robots", "check", file, "/first", "-", "/last"}, nil, "/x\n\n  /x/open  \n",
			"ALLOWED /first\nDISALLOWED /x\nALLOWED /x/open\nALLOWED /last\n", "", 0},
		{"robots file from stdin", []string{"robots", "check", "-", "/a"}, nil, "User-agent: *\nDisallow: /a\n", "DISALLOWED /a\n", "", 0},
		{"both from stdin", []string{"robots", "check", "-", "-"}, nil, "", "", "standard input cannot hold both", 2},
		{"missing url", []string{"robots", "check", file}, nil, "", "", "want ROBOTS_FILE and at least one URL", 2},
		{"missing file", []string{"robots", "check", "/nonexistent/robots.txt", "/a"}, nil, "", "", "no such file", 1},
		{"bad flag", []string{"robots", "check", "--frob", file, "/a"}, nil, "", "", "flag provided but not defined", 2},
		{"bad setting", []string{"robots", "check", file, "/a"}, map[string]string{"CORPUSBOT_USER_AGENT": "?"}, "", "", "setting USER_AGENT", 1},
		{"help", []string{"robots", "check", "--help"}, nil, "", "Usage: corpusbot robots check", "", 0},
		{"unknown command", []string{"robots", "frob"}, nil, "", "", "unknown command", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, strings.NewReader(tt.stdin), tt.env, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, errOut)
			}
			if tt.wantCode == 0 && tt.name != "help" && out != tt.wantOut {
				t.Errorf("stdout\n%s\nwant\n%s", out, tt.wantOut)
			}
			if tt.name == "help" && !strings.HasPrefix(out, tt.wantOut) {
				t.Errorf("help starts %q", out)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q, want it to contain %q", errOut, tt.wantErr)
			}
			if strings.Count(errOut, "\n") > 1 {
				t.Errorf("stderr has more than one line: %q", errOut)
			}
		})
	}
}

// urlStream produces n URLs and, when it runs dry, records how many output
// lines had already been written: a command that held every URL in memory
// before answering would have written none.
type urlStream struct {
	n, next int
	pending []byte
	out     *lineCounter
	atEOF   int
}

func (s *urlStream) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		if s.next == s.n {
			s.atEOF = s.out.lines
			return 0, io.EOF
		}
		s.pending = fmt.Appendf(nil, "https://blog.example/%d/post-%d?paged=%d\n", s.next%7, s.next, s.next%3)
		s.next++
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

type lineCounter struct{ lines int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

func TestRobotsCheckStreamsStdin(t *testing.T) {
	const n = 200_000
	file := writeRobots(t, "User-agent: *\nDisallow: /*?paged=2\n")
	out := &lineCounter{}
	in := &urlStream{n: n, out: out}
	e := environment{stdin: in, stdout: out, stderr: io.Discard, lookupEnv: func(string) (string, bool) { return "", false }}
	if code := run(e, []string{"robots", "check", file, "-"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if out.lines != n {
		t.Fatalf("%d lines out for %d URLs", out.lines, n)
	}
	// Only the output buffer's worth of answers may still be pending at EOF.
	if in.atEOF < n-5000 {
		t.Fatalf("only %d of %d answers written before the input ended: URLs are being held", in.atEOF, n)
	}
}
