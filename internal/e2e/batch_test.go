package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestBinaryBatchCommands: the batch commands, run through the binary one
// after the other as an operator would, each do the work their --limit
// names and no more — on the frontier `run` uses, so politely — and a
// `run --once` after them finishes the rest without fetching a page twice.
func TestBinaryBatchCommands(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	hosts := []string{"203.0.113.41", "203.0.113.42", "203.0.113.43"}
	var urls []string
	for _, h := range hosts {
		host := web.Host(h)
		posts := blog(host, 3)
		urls = append(urls, posts...)
		// A sitemap too, named in robots.txt, listing the same posts.
		host.Robots("User-agent: *\nAllow: /\nSitemap: " + host.URL("/sitemap.xml") + "\n")
		var locs strings.Builder
		for _, u := range posts {
			fmt.Fprintf(&locs, "<url><loc>%s</loc></url>", u) // no lastmod: nothing says the feed's posts changed
		}
		host.Put("/sitemap.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+locs.String()+`</urlset>`)
	}
	env := binarytest.NewEnv(t).Proxy(t, web)
	addSources(t, env, hosts...)
	asked := func(path string) []string { // the hosts asked for path so far
		var out []string
		for _, h := range hosts {
			for _, r := range web.RequestsTo(h) {
				if r.URI == path {
					out = append(out, h)
					break
				}
			}
		}
		return out
	}
	run := func(args ...string) {
		t.Helper()
		if r := env.Run(t, 2*time.Minute, args...); r.Code != 0 {
			t.Fatalf("%s: %d %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}

	// Two sources discovered, their two feeds read and the pages they owe
	// fetched; the third source is not asked anything.
	run("articles", "fetch", "--limit", "2")
	if got := asked("/feed.xml"); len(got) != 2 {
		t.Fatalf("articles fetch --limit 2 read the feeds of %v, want two sites", got)
	}
	if n := len(web.RequestsTo(hosts[2])); n != 0 {
		t.Errorf("articles fetch --limit 2 asked the third site %d requests", n)
	}
	// One source's sitemaps looked for (robots.txt names it: it is not
	// fetched to be found), then read.
	run("sitemaps", "discover", "--limit", "1")
	r := env.Run(t, time.Minute, "export", "--sources")
	if n := strings.Count(r.Stdout, `"via":"robots"`); r.Code != 0 || n != 1 {
		t.Fatalf("after sitemaps discover --limit 1, %d sources have a sitemap, want 1:\n%s%s", n, r.Stdout, r.Stderr)
	}
	run("sitemaps", "fetch", "--limit", "5")
	if got := asked("/sitemap.xml"); len(got) != 1 {
		t.Fatalf("sitemaps fetch read the sitemaps of %v, want the one site's", got)
	}
	// The rest, by the scheduler.
	run("run", "--once")
	wantIndexed(t, env, urls)
	for _, u := range urls {
		path := strings.TrimPrefix(u, "http://")
		host, uri, _ := strings.Cut(path, "/")
		n := 0
		for _, r := range web.RequestsTo(host) {
			if r.URI == "/"+uri {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s fetched %d times, want once", u, n)
		}
	}
	if v := web.Violations("CorpusBot/1.0 (+https://corpus.blog/crawler)", "CorpusBot", func(string) time.Duration { return 50 * time.Millisecond }); len(v) > 0 {
		t.Errorf("politeness violations: %v", v)
	}
}
