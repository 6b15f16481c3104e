package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSitemapFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gzipSitemap(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

const sampleSitemap = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://blog.example/a?x=1&amp;y=&lt;2&gt;</loc><lastmod>2026-01-02T04:04:05+01:00</lastmod></url>
  <url><loc>https://blog.example/b</loc><lastmod>2026-01-02T03:04:05.250Z</lastmod></url>
  <url><loc>https://blog.example/c</loc><lastmod>not a date</lastmod></url>
  <url><loc>/relative</loc></url>
</urlset>
`

const sampleOut = `{"type":"url","loc":"https://blog.example/a?x=1&y=<2>","lastmod":"2026-01-02T03:04:05Z"}
{"type":"url","loc":"https://blog.example/b","lastmod":"2026-01-02T03:04:05.25Z"}
{"type":"url","loc":"https://blog.example/c"}
`

func TestSitemapParse(t *testing.T) {
	file := writeSitemapFile(t, "sitemap.xml", sampleSitemap)
	index := writeSitemapFile(t, "index.xml", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://blog.example/s1.xml</loc><lastmod>2026</lastmod></sitemap></sitemapindex>`)
	gz := writeSitemapFile(t, "misnamed.xml", gzipSitemap(sampleSitemap))
	feed := writeSitemapFile(t, "feed.xml", `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="/posts/1"/><updated>2026-01-02T03:04:05Z</updated></entry></feed>`)
	html := writeSitemapFile(t, "sitemap.xml", "<!DOCTYPE html>\n<html><body>Not found</body></html>\n")
	truncated := writeSitemapFile(t, "cut.xml", sampleSitemap[:strings.Index(sampleSitemap, "<url><loc>https://blog.example/c")+20])
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantOut  string
		wantErr  string
		wantCode int
	}{
		{"json", []string{"sitemap", "parse", "--json", file}, "", sampleOut, "", 0},
		{"without --json the same lines", []string{"sitemap", "parse", file}, "", sampleOut, "", 0},
		{"flags after the file", []string{"sitemap", "parse", file, "--json"}, "", sampleOut, "", 0},
		{"colon form", []string{"sitemap:parse", file}, "", sampleOut, "", 0},
		{"stdin", []string{"sitemap", "parse", "-"}, sampleSitemap, sampleOut, "", 0},
		{"gzip sniffed, not named", []string{"sitemap", "parse", "--json", gz}, "", sampleOut, "", 0},
		{"gzip on stdin", []string{"sitemap", "parse", "-"}, gzipSitemap(sampleSitemap), sampleOut, "", 0},
		{"index", []string{"sitemap", "parse", "--json", index}, "",
			`{"type":"sitemap","loc":"https://blog.example/s1.xml","lastmod":"2026-01-01T00:00:00Z"}` + "\n", "", 0},
		{"text sitemap", []string{"sitemap", "parse", "-"}, "https://t.example/1\r\nhttps://t.example/2\r\n",
			`{"type":"url","loc":"https://t.example/1"}` + "\n" + `{"type":"url","loc":"https://t.example/2"}` + "\n", "", 0},
		{"feed relative to --url", []string{"sitemap", "parse", "--url", "https://feeds.example/blog/feed.atom", feed}, "",
			`{"type":"url","loc":"https://feeds.example/posts/1","lastmod":"2026-01-02T03:04:05Z"}` + "\n", "", 0},
		{"feed without --url drops relative links", []string{"sitemap", "parse", feed}, "", "", "", 0},
		{"html page", []string{"sitemap", "parse", "--json", html}, "", "", "not a sitemap: an HTML page", 3},
		{"empty body", []string{"sitemap", "parse", "-"}, "", "", "not a sitemap: empty body", 3},
		{"json document", []string{"sitemap", "parse", "-"}, `{"urls":[]}`, "", "not a sitemap: a JSON document", 3},
		{"other xml", []string{"sitemap", "parse", "-"}, `<note/>`, "", "not a sitemap: XML whose root element is <note>", 3},
		{"truncated xml keeps what was read", []string{"sitemap", "parse", truncated}, "",
			strings.Join(strings.SplitAfter(sampleOut, "\n")[:2], ""), "warning: broken: XML syntax error on line 5: unexpected end of file inside <loc>; printed the 2 entries read before it", 0},
		{"missing file", []string{"sitemap", "parse", "/nonexistent/sitemap.xml"}, "", "", "no such file", 1},
		{"no file", []string{"sitemap", "parse"}, "", "", "want exactly one FILE", 2},
		{"two files", []string{"sitemap", "parse", file, file}, "", "", "want exactly one FILE", 2},
		{"bad --url", []string{"sitemap", "parse", "--url", "/relative", file}, "", "", "is not an absolute URL", 2},
		{"bad flag", []string{"sitemap", "parse", "--frob", file}, "", "", "flag provided but not defined", 2},
		{"help", []string{"sitemap", "parse", "--help"}, "", "Usage: corpusbot sitemap parse", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, strings.NewReader(tt.stdin), nil, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, errOut)
			}
			switch {
			case tt.name == "help":
				if !strings.HasPrefix(out, tt.wantOut) {
					t.Errorf("help starts %q", out)
				}
			case out != tt.wantOut:
				t.Errorf("stdout\n%s\nwant\n%s", out, tt.wantOut)
			}
			if !strings.Contains(errOut, tt.wantErr) || tt.wantErr == "" && errOut != "" {
				t.Errorf("stderr %q, want it to contain %q", errOut, tt.wantErr)
			}
			if strings.Count(errOut, "\n") > 1 {
				t.Errorf("stderr has more than one line: %q", errOut)
			}
		})
	}
}

// TestSitemapParseLimits checks that a file cut by a limit prints what was
// read, warns in one line and exits 0.
func TestSitemapParseLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range 50_001 {
		fmt.Fprintf(&b, "<url><loc>https://n.example/%d</loc></url>\n", i)
	}
	b.WriteString("</urlset>")
	out, errOut, code := runCLI(t, strings.NewReader(b.String()), nil, "sitemap", "parse", "-")
	if code != 0 || strings.Count(out, "\n") != 50_000 {
		t.Fatalf("exit %d, %d lines", code, strings.Count(out, "\n"))
	}
	if errOut != "corpusbot sitemap parse: warning: truncated: more than 50000 entries; printed the 50000 entries read before it\n" {
		t.Fatalf("stderr %q", errOut)
	}
}

// sitemapStream produces a urlset of n entries and, when it hands out the
// closing tag (the reader stops there, never asking for EOF), records how
// many output lines had already been written: a command that held the
// entries before printing would have written none.
type sitemapStream struct {
	n, next int
	pending []byte
	out     *lineCounter
	atEOF   int
}

func (s *sitemapStream) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		switch {
		case s.next == 0:
			s.pending = []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
		case s.next <= s.n:
			s.pending = fmt.Appendf(nil, "<url><loc>https://blog.example/%d</loc><lastmod>2026-01-02</lastmod></url>\n", s.next)
		case s.next == s.n+1:
			s.pending = []byte("</urlset>\n")
			s.atEOF = s.out.lines
		default:
			return 0, io.EOF
		}
		s.next++
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func TestSitemapParseStreams(t *testing.T) {
	const n = 50_000
	out := &lineCounter{}
	in := &sitemapStream{n: n, out: out}
	e := environment{stdin: in, stdout: out, stderr: io.Discard, lookupEnv: func(string) (string, bool) { return "", false }}
	if code := run(e, []string{"sitemap", "parse", "-"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if out.lines != n {
		t.Fatalf("%d lines out for %d entries", out.lines, n)
	}
	// Only the read-ahead and the output buffer's worth may be pending at EOF.
	if in.atEOF < n-5000 {
		t.Fatalf("only %d of %d entries written before the input ended: entries are being held", in.atEOF, n)
	}
}
