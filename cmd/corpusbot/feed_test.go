package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var sampleRSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>A &lt;Blog&gt; &amp; more</title>
<atom:link href="https://b.example/feed/" rel="self"/>
<link>https://b.example/</link>
<atom:link href="?paged=2" rel="next"/>
<item><title>Full</title><link>/2026/01/full/</link><pubDate>Mon, 05 Jan 2026 09:30:00 EST</pubDate>
<content:encoded><![CDATA[<p>` + longText + `</p>]]></content:encoded></item>
<item><title>Excerpt</title><guid>https://b.example/2026/01/excerpt/</guid><description>` + longText + `</description></item>
</channel>
</rss>
`

// longText is well over the 500 characters of a full post.
var longText = strings.Repeat("Feeds carry the post itself often enough that the crawler need not fetch the page. ", 8)

const sampleRSSOut = `{"type":"feed","title":"A <Blog> & more","link":"https://b.example/","format":"rss"}
{"type":"item","link":"https://b.example/2026/01/full/","title":"Full","published":"2026-01-05T14:30:00Z","updated":"","full_content":true}
{"type":"item","link":"https://b.example/2026/01/excerpt/","title":"Excerpt","published":"","updated":"","full_content":false}
{"type":"next","href":"https://b.example/feed/?paged=2"}
`

const sampleAtom = `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://a.example/blog/">
<title type="html">Atom &amp;amp; co</title><link href="./"/><link rel="next" href="page/2"/>
<entry><title>One</title><link href="one"/><published>2026-01-01T00:00:00+01:00</published><updated>2026-01-02T00:00:00Z</updated><summary>s</summary></entry>
<entry><title>Only updated</title><link href="two"/><updated>2026-01-03T00:00:00Z</updated></entry>
</feed>`

const sampleAtomOut = `{"type":"feed","title":"Atom & co","link":"https://a.example/blog/","format":"atom"}
{"type":"item","link":"https://a.example/blog/one","title":"One","published":"2025-12-31T23:00:00Z","updated":"2026-01-02T00:00:00Z","full_content":false}
{"type":"item","link":"https://a.example/blog/two","title":"Only updated","published":"","updated":"2026-01-03T00:00:00Z","full_content":false}
{"type":"next","href":"https://a.example/blog/page/2"}
`

const sampleJSON = `{"version":"https://jsonfeed.org/version/1.1","title":"J","home_page_url":"/",
"items":[{"id":"1","url":"posts/1","title":"P","date_modified":"2026-02-03T04:05:06Z","content_text":"short"}]}`

const sampleJSONOut = `{"type":"feed","title":"J","link":"https://j.example/","format":"json"}
{"type":"item","link":"https://j.example/feeds/posts/1","title":"P","published":"","updated":"2026-02-03T04:05:06Z","full_content":false}
`

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFeedParse(t *testing.T) {
	rss := writeFile(t, "feed.xml", sampleRSS)
	html := writeFile(t, "page.html", "<!DOCTYPE html><html><head><title>404</title></head><body></body></html>")
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		stdin    string
		wantOut  string
		wantErr  string
		wantCode int
	}{
		{"rss --json with --url", []string{"feed", "parse", "--json", "--url", "https://b.example/feed/", rss}, nil, "", sampleRSSOut, "", 0},
		{"text form is the same lines", []string{"feed", "parse", "--url", "https://b.example/feed/", rss}, nil, "", sampleRSSOut, "", 0},
		{"flags after the file", []string{"feed", "parse", rss, "--url", "https://b.example/feed/", "--json"}, nil, "", sampleRSSOut, "", 0},
		{"colon form", []string{"feed:parse", "--url", "https://b.example/feed/", rss}, nil, "", sampleRSSOut, "", 0},
		{"atom from stdin, xml:base", []string{"feed", "parse", "-"}, nil, sampleAtom, sampleAtomOut, "", 0},
		{"json feed, relative to --url", []string{"feed", "parse", "--url", "https://j.example/feeds/feed.json", "-"}, nil, sampleJSON, sampleJSONOut, "", 0},
		{"no --url leaves relative links relative", []string{"feed", "parse", "-"}, nil,
			`<rss version="2.0"><channel><title>t</title><link>/</link><item><link>/p</link></item></channel></rss>`,
			`{"type":"feed","title":"t","link":"/","format":"rss"}` + "\n" +
				`{"type":"item","link":"/p","title":"","published":"","updated":"","full_content":false}` + "\n", "", 0},
		{"truncated keeps what was read", []string{"feed", "parse", "-"}, nil,
			`<rss version="2.0"><channel><title>t</title><item><link>https://x.example/1</link></item><item><link>https://x.exa`,
			`{"type":"feed","title":"t","link":"","format":"rss"}` + "\n" +
				`{"type":"item","link":"https://x.example/1","title":"","published":"","updated":"","full_content":false}` + "\n",
			"truncated", 0},
		{"BODY_MAX bounds the read", []string{"feed", "parse", rss}, map[string]string{"CORPUSBOT_BODY_MAX": "1KiB"}, "",
			`{"type":"feed","title":"A <Blog> & more","link":"https://b.example/","format":"rss"}` + "\n" +
				`{"type":"next","href":"?paged=2"}` + "\n", "truncated", 0},
		{"html is not a feed", []string{"feed", "parse", html}, nil, "", "", "not a feed: an HTML page", 3},
		{"json without version", []string{"feed", "parse", "-"}, nil, `{"title":"x","items":[]}`, "", "not a feed: JSON without a jsonfeed.org version", 3},
		{"empty", []string{"feed", "parse", "-"}, nil, "", "", "not a feed: empty document", 3},
		{"sitemap", []string{"feed", "parse", "-"}, nil, `<urlset><url><loc>https://x.example/</loc></url></urlset>`, "", "not a feed: a sitemap", 3},
		{"missing file", []string{"feed", "parse", "/nonexistent/feed.xml"}, nil, "", "", "no such file", 1},
		{"no file", []string{"feed", "parse"}, nil, "", "", "want one FILE", 2},
		{"two files", []string{"feed", "parse", rss, rss}, nil, "", "", "want one FILE", 2},
		{"relative --url", []string{"feed", "parse", "--url", "/feed/", rss}, nil, "", "", "not an absolute URL", 2},
		{"bad flag", []string{"feed", "parse", "--frob", rss}, nil, "", "", "flag provided but not defined", 2},
		{"help", []string{"feed", "parse", "--help"}, nil, "", "Usage: corpusbot feed parse", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, strings.NewReader(tt.stdin), tt.env, tt.args...)
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
			if tt.wantErr == "" && errOut != "" {
				t.Errorf("stderr %q, want none", errOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q, want it to contain %q", errOut, tt.wantErr)
			}
			if tt.wantCode != 0 && strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", errOut)
			}
		})
	}
}
