package extract_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/extract"
)

var sinkPage extract.Page

// BenchmarkParse reads one realistic 100 KB WordPress post: theme markup,
// navigation, a sidebar, inline and external scripts, JSON-LD, and about
// 40 KB of article with links, generated with a fixed seed.
func BenchmarkParse(b *testing.B) {
	page := benchPage()
	u, _ := url.Parse("https://bench.example/2026/03/a-long-post/")
	p, err := extract.Parse(page, u, "CorpusBot")
	if err != nil || p.Shell || p.Noindex || len(p.Links) < 20 || len(p.Text) < 20000 {
		b.Fatalf("bench page misread: %d links, %d bytes of text, %v", len(p.Links), len(p.Text), err)
	}
	for _, l := range p.Links {
		if !strings.HasPrefix(l, "https://source") {
			b.Fatalf("a link from outside the article: %s", l)
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if sinkPage, err = extract.Parse(page, u, "CorpusBot"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchPage(t *testing.T) {
	if n := len(benchPage()); n < 95_000 || n > 110_000 {
		t.Fatalf("bench page is %d bytes", n)
	}
}

var benchWords = strings.Fields(`the a crawler feed post site reads writes archive sitemap page robots
	polite request server cache header date link title entry content summary html markup text blog
	weblog publisher reader index search corpus record citation source year month morning evening
	notes travel cooking garden code release version library package module function error test`)

func words(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[r.IntN(len(benchWords))])
	}
	return b.String()
}

func benchPage() []byte {
	r := rand.New(rand.NewPCG(2026, 100))
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en-US"><head><meta charset="UTF-8"><title>A long post about crawling &#8211; Bench Blog</title>
<meta name="robots" content="index, follow, max-image-preview:large">
<meta property="article:published_time" content="2026-03-01T09:00:00+00:00">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"BlogPosting","datePublished":"2026-03-01T09:00:00+00:00"}]}</script>
`)
	for i := range 12 {
		fmt.Fprintf(&b, `<link rel="stylesheet" id="style-%d-css" href="https://bench.example/wp-content/plugins/p%d/style.css?ver=6.7" media="all">`+"\n", i, i)
	}
	b.WriteString(`<style>` + strings.Repeat(".wp-block-button__link{color:#fff;background-color:#32373c;border-radius:9999px} ", 120) + `</style>`)
	b.WriteString(`<script>` + strings.Repeat("window._wpemojiSettings={\"baseUrl\":\"https:\\/\\/s.w.org\\/images\\/core\\/emoji\\/15.0.3\\/72x72\\/\"};", 40) + `</script>`)
	b.WriteString(`</head><body class="post-template-default single single-post"><div id="page" class="site"><a class="skip-link screen-reader-text" href="#content">Skip to content</a><header id="masthead" class="site-header"><nav class="primary-navigation"><ul>`)
	for i := range 30 {
		fmt.Fprintf(&b, `<li class="menu-item menu-item-%d"><a href="https://bench.example/category/%s/">%s</a></li>`, i, words(r, 1), words(r, 2))
	}
	b.WriteString(`</ul></nav></header><div id="content" class="site-content"><main id="main"><article class="post type-post hentry"><header class="entry-header"><h1 class="entry-title">A long post about crawling</h1></header><div class="entry-content">`)
	for i := 0; b.Len() < 62_000; i++ {
		b.WriteString(`<p>`)
		b.WriteString(words(r, 40+r.IntN(60)))
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, ` <a href="https://source%d.example/%s/">%s</a>`, r.IntN(200), strings.ReplaceAll(words(r, 2), " ", "-"), words(r, 3))
		}
		b.WriteString(`, ` + words(r, 20) + `.</p>` + "\n")
		if i%6 == 5 {
			fmt.Fprintf(&b, `<h2 class="wp-block-heading">%s</h2>`+"\n", words(r, 5))
		}
		if i%9 == 8 {
			fmt.Fprintf(&b, `<figure class="wp-block-image size-large"><img decoding="async" width="1024" height="683" src="https://bench.example/wp-content/uploads/2026/03/img-%d.jpg" alt="" srcset="https://bench.example/wp-content/uploads/2026/03/img-%d.jpg 1024w, https://bench.example/wp-content/uploads/2026/03/img-%d-300x200.jpg 300w" sizes="(max-width: 1024px) 100vw, 1024px"/></figure>`+"\n", i, i, i)
		}
	}
	b.WriteString(`</div><footer class="entry-footer"><span class="cat-links"><a href="https://bench.example/category/crawling/" rel="category tag">Crawling</a></span></footer></article></main><aside class="widget-area">`)
	for i := range 40 {
		fmt.Fprintf(&b, `<section class="widget"><h2 class="widget-title">%s</h2><ul><li><a href="https://bench.example/2025/%02d/%s/">%s</a></li></ul></section>`, words(r, 2), 1+i%12, strings.ReplaceAll(words(r, 3), " ", "-"), words(r, 5))
	}
	b.WriteString(`</aside></div><footer id="colophon" class="site-footer"><div class="site-info"><a href="https://wordpress.org/">Proudly powered by WordPress</a></div></footer></div>`)
	for b.Len() < 100_000 {
		fmt.Fprintf(&b, `<script src="https://bench.example/wp-includes/js/dist/%s.min.js?ver=%d" id="wp-%d-js"></script>`+"\n", words(r, 1), r.IntN(1e6), r.IntN(1e6))
	}
	b.WriteString(`</body></html>`)
	return []byte(b.String())
}

// BenchmarkFixtures reads every page of testdata once per iteration: the
// shapes the extractor is tuned on, for profiles (go test -bench Fixtures
// -cpuprofile cpu.out); BenchmarkParse is one long post.
func BenchmarkFixtures(b *testing.B) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	type page struct {
		body []byte
		u    *url.URL
		ct   string
	}
	var pages []page
	for _, n := range names {
		body, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		stem := strings.TrimSuffix(n, ".html")
		pages = append(pages, page{body, fixtureURL(b, stem), fixtureContentType(b, stem)})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			if _, err := extract.ParseResponse(p.body, p.u, p.ct, "CorpusBot"); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPages reads every page of a batch file in the form of
// `corpusbot page parse --batch` (JSON lines {"file","url","content_type"})
// named by CORPUSBOT_BENCH_PAGES, once per iteration: real pages of real
// sizes, which are not in the repository (the extraction corpus, a crawl's
// WARC bodies). It reports time and allocation per page; without the
// variable it is skipped.
func BenchmarkPages(b *testing.B) {
	batch := os.Getenv("CORPUSBOT_BENCH_PAGES")
	if batch == "" {
		b.Skip("CORPUSBOT_BENCH_PAGES names no batch file")
	}
	lines, err := os.ReadFile(batch)
	if err != nil {
		b.Fatal(err)
	}
	type page struct {
		body []byte
		u    *url.URL
		ct   string
	}
	var pages []page
	for line := range strings.Lines(string(lines)) {
		var in struct {
			File        string `json:"file"`
			URL         string `json:"url"`
			ContentType string `json:"content_type"`
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			b.Fatalf("%s: %v", batch, err)
		}
		body, err := os.ReadFile(in.File)
		if err != nil {
			b.Fatal(err)
		}
		u, err := url.Parse(in.URL)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, page{body, u, in.ContentType})
	}
	if len(pages) == 0 {
		b.Fatalf("%s lists no page", batch)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			if sinkPage, err = extract.ParseResponse(p.body, p.u, p.ct, "CorpusBot"); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages)), "ns/page")
}
