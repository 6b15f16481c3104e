package crawl

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// fieldsText is htmlText as it was written first: the text built whole,
// then split into words and joined. htmlText must give the same.
func fieldsText(fragment string) string {
	z := html.NewTokenizer(strings.NewReader(fragment))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.StartTagToken:
			if n, _ := z.TagName(); string(n) == "script" || string(n) == "style" {
				skip++
			}
		case html.EndTagToken:
			if n, _ := z.TagName(); (string(n) == "script" || string(n) == "style") && skip > 0 {
				skip--
			}
			b.WriteByte(' ')
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
				b.WriteByte(' ')
			}
		}
	}
}

func TestHTMLTextCollapsesAsFields(t *testing.T) {
	cases := []string{
		"",
		"   ",
		"<p>one</p><p>two</p>",
		"<p>  lead and trail  </p>",
		"a<b>b</b>c",
		"word&nbsp;&nbsp;word", // U+00A0 is white space to unicode.IsSpace
		"line\u0085next\u2028sep\u3000ideographic", // NEL, LINE SEPARATOR, IDEOGRAPHIC SPACE
		"tab\tnew\nline\r\nvt\vff\f",
		"bad \xff\xfe utf-8 \x85 lone",
		"<script>var x = 1;</script>kept<style>p{}</style> too",
		"<p>caf\u00e9 na\u00efve \u65e5\u672c\u8a9e</p>",
		"<ul><li>a</li><li> b </li></ul>",
	}
	pieces := []string{"a", "word", " ", "  ", "\t", "\n", "\u00a0", "&nbsp;", "\u2003", "\xff", "é", "<p>", "</p>", "<b>", "</b>", "<script>", "</script>", "<br>", "&amp;", "x\u0085y"}
	rng := rand.New(rand.NewPCG(34, 1))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if got, want := htmlText(c), fieldsText(c); got != want {
			t.Errorf("htmlText(%q) = %q, want %q", c, got, want)
		}
	}
}

// BenchmarkHTMLText is a full-content feed entry of real size (about 60 KB
// of HTML) made text, by htmlText and by the first way (fieldsText).
func BenchmarkHTMLText(b *testing.B) {
	var f strings.Builder
	for i := range 200 {
		fmt.Fprintf(&f, "<p>Paragraph %d of the post, with <a href=\"/p/%d\">a link</a>,&nbsp;some <em>emphasis</em>\n  and the ordinary run of words a post has.</p>\n", i, i)
	}
	fragment := f.String()
	for name, fn := range map[string]func(string) string{"collapsed": htmlText, "fields": fieldsText} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(fragment)))
			b.ReportAllocs()
			for b.Loop() {
				fn(fragment)
			}
		})
	}
}
