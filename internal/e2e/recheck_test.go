package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// A post removed from a child sitemap whose index did not change is
// marked removed within SITEMAP_RECHECK, and not before.
func TestRemovalBehindQuietIndexWithinRecheck(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	t.Cleanup(web.Close)
	const host = "203.0.113.51"
	h := web.Host(host)
	blog(h, 1) // its feed names the first post only
	h.Robots("User-agent: *\nAllow: /\nSitemap: http://" + host + "/sitemap_index.xml\n")
	lastmod := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Format(time.RFC3339)
	urlset := func(n int) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "<url><loc>http://%s/posts/%d/</loc><lastmod>%s</lastmod></url>", host, i, lastmod)
		}
		return b.String() + "</urlset>"
	}
	for i := 2; i <= 3; i++ {
		h.Put(fmt.Sprintf("/posts/%d/", i), "text/html; charset=utf-8", fmt.Sprintf("<!doctype html><html><head><title>Post %d</title></head><body><article><h1>Post %d</h1><p>%s</p></article></body></html>",
			i, i, strings.Repeat("Words of an older post, long enough to extract. ", 30)))
	}
	h.Put("/sitemap_index.xml", "application/xml", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<sitemap><loc>http://`+host+`/post-sitemap.xml</loc><lastmod>`+lastmod+`</lastmod></sitemap></sitemapindex>`)
	child := h.Put("/post-sitemap.xml", "application/xml", urlset(3))
	removed := fmt.Sprintf("http://%s/posts/3/", host)

	env := binarytest.NewEnv(t).Proxy(t, web).
		Set("CORPUSBOT_SITEMAP_INTERVAL", "0s").
		Set("CORPUSBOT_SITEMAP_RECHECK", "20s")
	addSources(t, env, host)
	state := func() string {
		t.Helper()
		out := env.Run(t, time.Minute, "export")
		for _, line := range binarytest.Lines(out.Stdout) {
			if strings.Contains(line, `"url":"`+removed+`"`) {
				_, rest, _ := strings.Cut(line, `"state":"`)
				st, _, _ := strings.Cut(rest, `"`)
				return st
			}
		}
		return "absent"
	}
	run := func() {
		t.Helper()
		if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
			t.Fatalf("run --once: %d\n%s", r.Code, r.Stderr)
		}
	}
	run()
	first := time.Now()
	if st := state(); st != "indexed" {
		t.Fatalf("after the first run the post is %s", st)
	}
	child.Update(urlset(2), time.Now()) // the index stays byte-identical
	run()
	if time.Since(first) < 15*time.Second {
		if st := state(); st != "indexed" {
			t.Errorf("before SITEMAP_RECHECK the post is %s: the child was read again although not due", st)
		}
	}
	time.Sleep(time.Until(first.Add(21 * time.Second)))
	run()
	if st := state(); st != "removed" {
		t.Errorf("after SITEMAP_RECHECK the post is %s, want removed", st)
	}
	full, notModified := child.Counts()
	t.Logf("child sitemap served %d times whole, %d times 304", full, notModified)
}
