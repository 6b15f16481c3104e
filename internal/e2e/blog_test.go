package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// blog publishes a small blog on host: robots.txt, a homepage that links
// its RSS feed, the feed with its posts' summaries, and each post's
// page. It returns the posts' URLs.
func blog(host *simweb.Host, posts int) []string {
	host.Robots("User-agent: *\nAllow: /\n")
	host.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>Blog</title>
<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><p>A blog.</p></body></html>`)
	var items strings.Builder
	var urls []string
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := 1; i <= posts; i++ {
		u := host.URL(fmt.Sprintf("/posts/%d/", i))
		urls = append(urls, u)
		fmt.Fprintf(&items, `<item><title>Post %d</title><link>%s</link><pubDate>%s</pubDate><description>Short %d</description></item>`,
			i, u, base.Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z), i)
		host.Put(fmt.Sprintf("/posts/%d/", i), "text/html; charset=utf-8", fmt.Sprintf(`<!doctype html><html><head><title>Post %d</title></head>
<body><article><h1>Post %d</h1><p>%s</p></article></body></html>`, i, i, strings.Repeat("Words of a real post, long enough to extract. ", 30)))
	}
	host.Put("/feed.xml", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>`+host.URL("/")+`</link>`+items.String()+`</channel></rss>`)
	return urls
}

// addSources adds a source for each host (its homepage, plain http).
func addSources(t *testing.T, env *binarytest.Env, hosts ...string) {
	t.Helper()
	args := []string{"sources", "add"}
	for _, h := range hosts {
		args = append(args, "http://"+h+"/")
	}
	if r := env.Run(t, time.Minute, args...); r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}
}

// wantIndexed checks that `export` lists exactly urls, each indexed.
func wantIndexed(t *testing.T, env *binarytest.Env, urls []string) {
	t.Helper()
	r := env.Run(t, time.Minute, "export")
	if r.Code != 0 {
		t.Fatalf("export: %d %s", r.Code, r.Stderr)
	}
	for _, u := range urls {
		if !strings.Contains(r.Stdout, `"url":"`+u+`"`) {
			t.Errorf("export lacks %s:\n%s", u, r.Stdout)
		}
	}
	if n := strings.Count(r.Stdout, `"state":"indexed"`); n != len(urls) {
		t.Errorf("%d posts indexed, want %d:\n%s", n, len(urls), r.Stdout)
	}
}
