package extract_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"corpus.blog/corpusbot/internal/extract"
)

var pageURL, _ = url.Parse("https://blog.example/2026/03/a-post/")

// prose is enough real text for readability to find an article.
const prose = `<p>The first paragraph of a real post has several sentences in it. It talks about the weather and the garden and the state of the allotment after a wet spring. Nobody would mistake it for an empty page.</p>
<p>The second paragraph goes on in the same way, with a <a href="https://cited.example/source">source</a> and some more words, so that there is plenty of text for the extractor to score and keep.</p>`

func parse(t *testing.T, page string) extract.Page {
	t.Helper()
	p, err := extract.Parse([]byte(page), pageURL, "CorpusBot")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRobotsMeta(t *testing.T) {
	cases := []struct {
		meta              string
		noindex, nofollow bool
	}{
		{``, false, false},
		{`<meta name="robots" content="noindex">`, true, false},
		{`<meta name="robots" content="nofollow">`, false, true},
		{`<meta name="robots" content="none">`, true, true},
		{`<meta name="robots" content="NONE">`, true, true},
		{`<meta name="robots" content="all">`, false, false},
		{`<meta name="robots" content="index, follow">`, false, false},
		{`<meta name="robots" content="noindex,nofollow">`, true, true},
		{`<meta name="robots" content=" noindex ,  NOFOLLOW ">`, true, true},
		{`<meta name="robots" content="max-snippet:-1, noindex">`, true, false},
		{`<meta name="robots" content="noindexing">`, false, false},
		{`<meta name="Robots" content="noindex">`, true, false},
		{`<meta name=" robots " content="noindex">`, true, false},
		{`<meta name="corpusbot" content="noindex">`, true, false},
		{`<meta name="CORPUSBOT" content="nofollow">`, false, true},
		{`<meta name="CorpusBot" content="none">`, true, true},
		{`<meta name="googlebot" content="noindex, nofollow">`, false, false},
		{`<meta name="argandbot" content="none">`, false, false},
		{`<meta name="robots" content="nofollow"><meta name="corpusbot" content="noindex">`, true, true},
		{`<meta name="corpusbot" content="index"><meta name="robots" content="noindex">`, true, false},
		{`<meta property="robots" content="noindex">`, false, false},
		{`<meta name="robots">`, false, false},
		{`<meta http-equiv="robots" content="noindex">`, false, false},
	}
	for _, c := range cases {
		p := parse(t, `<html><head><title>t</title>`+c.meta+`</head><body>`+prose+`</body></html>`)
		if p.Noindex != c.noindex || p.Nofollow != c.nofollow {
			t.Errorf("%s: noindex %v nofollow %v, want %v %v", c.meta, p.Noindex, p.Nofollow, c.noindex, c.nofollow)
		}
		if p.Noindex != (p.Text == "") {
			t.Errorf("%s: noindex %v with %d bytes of text", c.meta, p.Noindex, len(p.Text))
		}
		if p.Nofollow != (p.Links == nil) {
			t.Errorf("%s: nofollow %v with links %q", c.meta, p.Nofollow, p.Links)
		}
	}
}

func TestRobotsAgentEmpty(t *testing.T) {
	// An empty agent must not match a meta tag with an empty name.
	p, err := extract.Parse([]byte(`<meta name="" content="noindex"><body>`+prose), pageURL, "")
	if err != nil || p.Noindex {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestShell(t *testing.T) {
	threeSentences := `<p>I am away until Monday. The garden is fine. Back soon.</p>`
	cases := []struct {
		name, body string
		shell      bool
	}{
		{"react", `<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div><script src="/static/js/main.js"></script>`, true},
		{"mount without scripts", `<div id="root"></div>`, true},
		{"vue", `<div id="app"></div><script type="module" src="/assets/index.js"></script>`, true},
		{"nuxt", `<div id="__nuxt"><!----></div><script src="/_nuxt/entry.js"></script>`, true},
		{"gatsby", `<div id="___gatsby"><div style="outline:none" tabindex="-1" id="gatsby-focus-wrapper"></div></div><script src="/app-123.js"></script>`, true},
		{"angular", `<app-root></app-root><script src="main.js" type="module"></script>`, true},
		{"loading text", `<div id="root">Loading...</div><script src="/b.js"></script>`, true},
		{"inline bootstrap", `<script>document.body.innerHTML = render()</script>`, true},
		{"header only, mounted app", `<header><a href="/">Acme</a> <a href="/pricing">Pricing</a> <a href="/login">Log in</a></header><div id="root"></div><script src="/b.js"></script>`, true},
		{"three sentences, scripts", threeSentences + `<script src="/theme.js"></script><script>gtag()</script>`, false},
		{"three sentences in a mount point", `<div id="__next">` + threeSentences + `</div><script src="/_next/main.js"></script>`, false},
		{"three sentences, no scripts", threeSentences, false},
		{"empty page", ``, false},
		{"only data scripts", `<script type="application/ld+json">{"@type":"WebSite"}</script><script type="application/json">{}</script>`, false},
		{"empty inline script", `<script>  </script>`, false},
		{"server-rendered app", `<div id="root">` + prose + `</div><script src="/b.js"></script>`, false},
		{"long page around empty root", prose + `<div id="root"></div><script src="/widget.js"></script>`, false},
		{"text in noscript only", `<noscript>` + prose + `</noscript><div id="app"></div>`, true},
		{"text in template only", `<template>` + prose + `</template><script src="/x.js"></script>`, true},
	}
	for _, c := range cases {
		p := parse(t, `<!doctype html><html><head><title>A site</title></head><body>`+c.body+`</body></html>`)
		if p.Shell != c.shell {
			t.Errorf("%s: shell %v, want %v", c.name, p.Shell, c.shell)
		}
		if p.Shell && p.Text != "" {
			t.Errorf("%s: shell with text %q", c.name, p.Text)
		}
	}
}

func TestPublished(t *testing.T) {
	cases := []struct {
		name, head, body, want string
	}{
		{"none", ``, ``, ""},
		{"article meta", `<meta property="article:published_time" content="2026-01-02T03:04:05+02:00">`, ``, "2026-01-02T01:04:05Z"},
		{"article meta by name", `<meta name="article:published_time" content="2026-01-02">`, ``, "2026-01-02T00:00:00Z"},
		{"json-ld", `<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2025-12-31T23:00:00Z"}</script>`, ``, "2025-12-31T23:00:00Z"},
		{"json-ld graph", `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite"},{"@type":"Article","datePublished":"2025-06-01T12:00:00+00:00"}]}</script>`, ``, "2025-06-01T12:00:00Z"},
		{"json-ld array", `<script type="application/ld+json">[{"@type":"Organization"},{"@type":"BlogPosting","datePublished":"2025-06-02"}]</script>`, ``, "2025-06-02T00:00:00Z"},
		{"json-ld broken then good", `<script type="application/ld+json">{oops</script><script type="application/ld+json">{"datePublished":"2025-06-03"}</script>`, ``, "2025-06-03T00:00:00Z"},
		{"meta wins over json-ld", `<meta property="article:published_time" content="2024-01-01T00:00:00Z"><script type="application/ld+json">{"datePublished":"2025-01-01"}</script>`, ``, "2024-01-01T00:00:00Z"},
		{"unreadable meta falls through", `<meta property="article:published_time" content="last Tuesday"><script type="application/ld+json">{"datePublished":"2025-01-01"}</script>`, ``, "2025-01-01T00:00:00Z"},
		{"itemprop", ``, `<meta itemprop="datePublished" content="2023-03-03">`, "2023-03-03T00:00:00Z"},
		{"marked time", ``, `<aside><time datetime="2020-01-01">old</time></aside><p>Posted <time class="published" datetime="2023-04-04T10:00:00Z">4 April</time></p>`, "2023-04-04T10:00:00Z"},
		{"time in article, not sidebar", ``, `<aside><time datetime="2020-01-01">old</time></aside><article><time datetime="2023-05-05">5 May</time>` + prose + `</article>`, "2023-05-05T00:00:00Z"},
		{"time in extracted text", ``, `<div>` + strings.Replace(prose, "<p>The second", `<p><time datetime="2023-06-06T06:06:06Z">June</time> The second`, 1) + `</div>`, "2023-06-06T06:06:06Z"},
		{"sidebar time only", ``, `<aside class="sidebar"><time datetime="2020-01-01">old</time></aside>`, ""},
	}
	for _, c := range cases {
		p := parse(t, `<html><head><title>t</title>`+c.head+`</head><body>`+c.body+prose+`</body></html>`)
		got := ""
		if !p.Published.IsZero() {
			got = p.Published.Format(time.RFC3339)
			if p.Published.Location() != time.UTC {
				t.Errorf("%s: %v not UTC", c.name, p.Published)
			}
		}
		if got != c.want {
			t.Errorf("%s: published %q, want %q", c.name, got, c.want)
		}
	}
}

func TestLinksEdges(t *testing.T) {
	long := "https://long.example/" + strings.Repeat("a", extract.MaxURLLength)
	p := parse(t, `<html><head><title>t</title><base href="`+long+`/"></head><body>`+prose+
		`<p>More text with <a href="`+long+`">a long link</a>, <a href="rel">a relative one</a>, <a href="https://blog.example/2026/03/a-post/#comments">the page itself</a> and <a href="HTTP://Cited.EXAMPLE/source">the source again</a>.</p></body></html>`)
	want := []string{"https://cited.example/source", "https://blog.example/2026/03/a-post/rel", "http://cited.example/source"}
	if strings.Join(p.Links, " ") != strings.Join(want, " ") {
		t.Errorf("links %q, want %q", p.Links, want)
	}
}

func TestNoURL(t *testing.T) {
	if _, err := extract.Parse([]byte(prose), nil, "CorpusBot"); err == nil {
		t.Fatal("no error without a page URL")
	}
}

// TestMaxBytes: nothing past MaxBytes is read, not even a noindex.
func TestMaxBytes(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`<html><head><title>Big</title></head><body>` + prose + `<p>`)
	for b.Len() < extract.MaxBytes {
		b.WriteString("filler words for a very long page ")
	}
	b.WriteString(`</p><meta name="robots" content="noindex"><a href="https://late.example/">late</a>`)
	p, err := extract.Parse(b.Bytes(), pageURL, "CorpusBot")
	if err != nil {
		t.Fatal(err)
	}
	if p.Noindex {
		t.Error("a directive past MaxBytes was read")
	}
	for _, l := range p.Links {
		if strings.Contains(l, "late.example") {
			t.Error("a link past MaxBytes was read")
		}
	}
}

// TestUTF8Safety: a page declared UTF-8 with stray bytes gives U+FFFD; an
// undeclared page that is not valid UTF-8 is windows-1252, as in browsers.
func TestUTF8Safety(t *testing.T) {
	p := parse(t, "<html><head><meta charset=utf-8><title>Bad \xff byte</title></head><body>"+prose+"<p>more \xfe\xfd text</p></body></html>")
	if p.Title != "Bad \uFFFD byte" || !utf8.ValidString(p.Text) {
		t.Errorf("title %q", p.Title)
	}
	p = parse(t, "<html><head><title>Caf\xe9 \x93quoted\x94</title></head><body>"+prose+"</body></html>")
	if p.Title != "Café “quoted”" {
		t.Errorf("undeclared windows-1252 title %q", p.Title)
	}
}

// TestTooDeep: golang.org/x/net/html refuses a page with more than 512
// elements open at once; Parse says so rather than guessing.
func TestTooDeep(t *testing.T) {
	_, err := extract.Parse([]byte("<body>"+strings.Repeat("<div>", 600)+prose), pageURL, "CorpusBot")
	if err == nil || !strings.Contains(err.Error(), "blog.example") {
		t.Fatalf("error %v", err)
	}
}

// TestConcurrent: Parse shares nothing between calls (run with -race).
func TestConcurrent(t *testing.T) {
	page := []byte(`<html><head><title>t</title></head><body>` + prose + `</body></html>`)
	want := parse(t, string(page))
	done := make(chan extract.Page)
	for range 8 {
		go func() {
			p, _ := extract.Parse(page, pageURL, "CorpusBot")
			done <- p
		}()
	}
	for range 8 {
		if p := <-done; p.Text != want.Text || strings.Join(p.Links, " ") != strings.Join(want.Links, " ") {
			t.Errorf("concurrent parse differs: %+v", p)
		}
	}
}

// TestShellData: a shell whose article is in its framework's embedded
// state gets that text, read with no script run; the rest stay shells.
func TestShellData(t *testing.T) {
	long := "We laid forty metres of hawthorn along the lane in February, cutting each stem most of the way through and bending it over so that it grows again from the base."
	long2 := "Hazel stakes went in every half metre and long hazel rods were woven along the top, which holds the whole line together."
	nuxt := func(payload string) string {
		return `<div id="__nuxt"></div><script type="module" src="/_nuxt/entry.js"></script><script type="application/json" id="__NUXT_DATA__">` + payload + `</script>`
	}
	cases := []struct {
		name, body string
		want       string // the text, "" for a shell
	}{
		{"nuxt 3, html body through references", nuxt(`[["ShallowReactive",1],{"data":2},["ShallowReactive",3],{"post":4},{"title":5,"content":6},"Hedges","<p>` + long + `</p><p>` + long2 + `</p>"]`), long + "\n\n" + long2},
		{"nuxt 3, plain text body", nuxt(`[{"data":1},{"article":2},{"text":3},"` + long + `\n` + long2 + `"]`), long + "\n\n" + long2},
		{"nuxt content v2 tree", nuxt(`[{"doc":1},{"body":2},{"type":3,"children":4},"root",[5,9],{"type":6,"tag":7,"children":8},"element","p",[10],{"type":6,"tag":11,"children":12},{"type":13,"value":14},"h2",[15],"text","` + long + `",{"type":13,"value":16},"` + long2 + `"]`), long + "\n\n" + long2},
		{"nuxt content v3 minimark", nuxt(`[{"doc":1},{"body":2},{"type":3,"value":4},"minimark",[5,9],[6,7,8],"p",{},"` + long + `",[10,7,11],"h2","` + long2 + `"]`), long + "\n\n" + long2},
		{"nuxt 3, body too short", nuxt(`[{"data":1},{"post":2},{"content":3},"<p>Short.</p>"]`), ""},
		{"nuxt 3, cycle", nuxt(`[{"self":0,"next":1},{"back":0,"content":2},"x"]`), ""},
		{"nuxt 3, bad indexes", nuxt(`[{"a":-1,"b":99,"c":1.5,"d":"content"}]`), ""},
		{"nuxt 3, not an array", nuxt(`{"content":"` + long + `"}`), ""},
		{"nuxt 2, plain JSON", `<div id="__nuxt"></div><script src="/_nuxt/app.js"></script><script>window.__NUXT__ = {"data":[{"post":{"body":"` + long + ` ` + long2 + `"}}]};</script>`, long + " " + long2},
		{"nuxt 2, a function call", `<div id="__nuxt"></div><script src="/_nuxt/app.js"></script><script>window.__NUXT__=(function(a){return {data:[{post:{body:"` + long + `"}}]}}(1));</script>`, ""},
		{"nuxt 2, a JavaScript object", `<div id="__nuxt"></div><script src="/_nuxt/app.js"></script><script>window.__NUXT__={data:[{post:{body:"` + long + `"}}]};</script>`, ""},
	}
	for _, c := range cases {
		p := parse(t, `<!doctype html><html><head><title>A site</title></head><body>`+c.body+`</body></html>`)
		if p.Shell != (c.want == "") {
			t.Errorf("%s: shell %v", c.name, p.Shell)
		}
		if p.Text != c.want {
			t.Errorf("%s: text\n%q\nwant\n%q", c.name, p.Text, c.want)
		}
	}
}

// TestClassNamesPruned: boxes inside the chosen block are recognised by
// their class names too (readability is told to keep them), not only ids.
func TestClassNamesPruned(t *testing.T) {
	p := parse(t, `<!doctype html><html><head><title>A post</title></head><body><article>`+prose+
		`<div class="author-bio"><p>Ann grows beans in Leeds and writes about them here every week.</p></div>`+
		`<div class="wp-caption-text">A trough at dawn, full of rain</div></article></body></html>`)
	if !strings.Contains(p.Text, "plenty of text") {
		t.Fatalf("article lost: %q", p.Text)
	}
	for _, s := range []string{"Ann grows beans", "A trough at dawn"} {
		if strings.Contains(p.Text, s) {
			t.Errorf("text holds %q:\n%s", s, p.Text)
		}
	}
}

// TestChrome: the page's navigation, sidebars and footer are taken out
// before readability (no citations from them), after the page's facts in
// them are read.
func TestChrome(t *testing.T) {
	p := parse(t, `<!doctype html><html><head><title>A post</title></head><body>
<nav><a href="https://nav.example/">Home</a></nav>
<div class="wrap"><div class="post">`+prose+`</div>
<aside><a href="https://side.example/">A sidebar link</a></aside></div>
<footer><a rel="license" href="https://creativecommons.org/licenses/by/4.0/">CC BY</a>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","author":{"@type":"Person","name":"Ann Gardener"}}</script></footer>
</body></html>`)
	for _, l := range p.Links {
		if !strings.HasPrefix(l, "https://cited.example/") {
			t.Errorf("citation from the page's chrome: %s", l)
		}
	}
	if p.License != "https://creativecommons.org/licenses/by/4.0/" || p.Author != "Ann Gardener" {
		t.Errorf("footer facts lost: licence %q author %q", p.License, p.Author)
	}
}
