package robots

import (
	"strings"
	"testing"
)

// FuzzParse holds two properties over arbitrary bytes: parsing never panics,
// and writing the parsed file out and parsing that again decides every URL
// exactly as the original did.
func FuzzParse(f *testing.F) {
	seeds := []struct{ body, url string }{
		{"User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n", "/wp-admin/admin-ajax.php"},
		{"User-agent: CorpusBot\nDisallow: /caf%C3%A9/\nAllow: /*.html$\n", "/café/x.html"},
		{"\xEF\xBB\xBFuser-agent: corpusbot/1.0\r\ndisallow /a%2Fb\r\ncrawl-delay: 2.5\r\n", "/a/b"},
		{"User-agent: a\nSitemap: https://x.example/s.xml\nUser-agent: corpusbot\nDisallow: /*?paged=\n", "/?paged=2#top"},
		{"User-agent: *\nAllow: /d/index.html\nDisallow: /\nDisallow: /a$b$\n", "/d/"},
	}
	for _, s := range seeds {
		f.Add([]byte(s.body), s.url)
	}
	f.Fuzz(func(t *testing.T, body []byte, url string) {
		file := Parse(body)
		text := file.String()
		again := Parse([]byte(text))
		for _, line := range strings.Split(text, "\n") {
			if len(line) > MaxLineLength {
				return // the re-parse cuts this line, so decisions may rightly differ
			}
		}
		urls := []string{url, "/", "/robots.txt", "/" + url}
		for _, agent := range []string{"CorpusBot", "*", "", "a"} {
			want, got := file.For(agent), again.For(agent)
			// The head index must agree with trying every rule in order.
			linear, indexed := *want, *want
			linear.byHead, indexed.byHead = nil, indexHeads(want.rules)
			for _, u := range urls {
				if l, x := linear.Decide(u), indexed.Decide(u); l != x {
					t.Fatalf("agent %q url %q: linear scan %+v, head index %+v\nfile:\n%q", agent, u, l, x, body)
				}
				w, g := want.Decide(u), got.Decide(u)
				if w.Allowed != g.Allowed || w.Kind != g.Kind {
					t.Fatalf("agent %q url %q: original %+v, re-parsed %+v\noriginal file:\n%q\nre-written:\n%q", agent, u, w, g, body, text)
				}
			}
			wd, wok := want.CrawlDelay()
			gd, gok := got.CrawlDelay()
			if wok != gok || (wd-gd) > 1 || (gd-wd) > 1 {
				t.Fatalf("agent %q: crawl-delay %v/%v became %v/%v", agent, wd, wok, gd, gok)
			}
		}
		if a, b := strings.Join(file.Sitemaps(), " "), strings.Join(again.Sitemaps(), " "); a != b {
			t.Fatalf("sitemaps %q became %q", a, b)
		}
	})
}
