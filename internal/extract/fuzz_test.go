package extract_test

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/extract"
)

// FuzzParse holds, over arbitrary bytes and page URLs: no panic; an error
// only from the HTML parser (elements nested past its limit), with no page; output bounded by the input, and every field keeping
// its promise (links absolute, distinct, fragment-free; no text for a
// noindex or shell page; no links for a nofollow one; dates in UTC; a
// Markdown form exactly when there is text, with the text's words).
func FuzzParse(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, defaultPageURL)
	}
	f.Add([]byte(`<base href="//x/"><a href="a#b">x</a><a href="a">y</a>`), "http://h/p")
	f.Add([]byte(`<meta name="corpusbot" content="none"><div id="root"></div><script src=a></script>`), "https://h/")
	f.Add([]byte("\xef\xbb\xbf<meta charset=shift_jis><title>\x82\xa0</title>"), "https://h/")
	f.Add([]byte("<blockquote><ol start=9><li><p>a<br><br>b<pre>``x</pre><ul><li><h2>c#</h2>\u200b<li>- 1.</ul></ol></blockquote>"), "https://h/")
	f.Fuzz(func(t *testing.T, body []byte, rawURL string) {
		u, err := url.Parse(rawURL)
		if err != nil {
			return
		}
		p, err := extract.Parse(body, u, "CorpusBot")
		if err != nil {
			if !strings.Contains(err.Error(), "parse html") || !reflect.DeepEqual(p, extract.Page{}) {
				t.Fatalf("error %v with %+v", err, p)
			}
			return
		}
		// Decoding can triple a byte (windows-1252 or an invalid byte to
		// U+FFFD) and readability may report the title inside the text too.
		if budget := 8*len(body) + 1024; len(p.Title)+len(p.Text) > budget {
			t.Fatalf("%d bytes of title and text from %d in", len(p.Title)+len(p.Text), len(body))
		}
		if len(p.Links) > len(body)/8+1 {
			t.Fatalf("%d links from %d bytes", len(p.Links), len(body))
		}
		if (p.Noindex || p.Shell) && p.Text != "" {
			t.Fatalf("text kept: %+v", p)
		}
		if p.Nofollow && p.Links != nil {
			t.Fatalf("links kept: %+v", p)
		}
		if (p.Text == "") != (p.Markdown == "") {
			t.Fatalf("text %q, markdown %q", p.Text, p.Markdown)
		}
		if got, want := markdownWords(p.Markdown), markdownWords(p.Text); !slices.Equal(got, want) {
			t.Fatalf("markdown words differ from the text's:\n%q\n%q\ntext:\n%s\nmarkdown:\n%s", got, want, p.Text, p.Markdown)
		}
		if !p.Published.IsZero() && p.Published.Location() != time.UTC {
			t.Fatalf("date %v", p.Published)
		}
		seen := map[string]bool{}
		for _, l := range p.Links {
			if len(l) > extract.MaxURLLength || seen[l] || strings.Contains(l, "#") {
				t.Fatalf("link %q (seen %v)", l, seen[l])
			}
			seen[l] = true
			v, err := url.Parse(l)
			if err != nil || (v.Scheme != "http" && v.Scheme != "https") || v.Host == "" {
				t.Fatalf("link %q: %v", l, err)
			}
		}
	})
}
