package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// cutoffBlog publishes on host what blog does, plus a sitemap index named
// by robots.txt with two child sitemaps of the posts, so that a stop can
// fall on every kind of read: robots.txt, the homepage, the feed, its
// catalogue page, the index, its children and the posts' pages. It
// returns the posts' URLs.
func cutoffBlog(host *simweb.Host, posts int) []string {
	urls := blog(host, posts)
	host.Robots("User-agent: *\nAllow: /\nSitemap: " + host.URL("/sitemap_index.xml") + "\n")
	lastmod := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC).Format(time.RFC3339)
	half := len(urls) / 2
	for i, part := range [][]string{urls[:half], urls[half:]} {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, u := range part {
			fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>%s</lastmod></url>", u, lastmod)
		}
		b.WriteString("</urlset>")
		host.Put(fmt.Sprintf("/post-sitemap%d.xml", i+1), "application/xml", b.String())
	}
	host.Put("/sitemap_index.xml", "application/xml", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+
		`<sitemap><loc>`+host.URL("/post-sitemap1.xml")+`</loc><lastmod>`+lastmod+`</lastmod></sitemap>`+
		`<sitemap><loc>`+host.URL("/post-sitemap2.xml")+`</loc><lastmod>`+lastmod+`</lastmod></sitemap></sitemapindex>`)
	return urls
}

// conditional reports whether a request carried a validator.
func conditional(q simweb.Request) bool {
	return q.Header.Get("If-None-Match") != "" || q.Header.Get("If-Modified-Since") != ""
}

// `run` stopped with SIGINT in the middle of its sites keeps what it had
// read in full: every URL that answered 200 (each of these resources
// sends an ETag and a Last-Modified) in one process is, if a later process
// asks it again at all, asked conditionally — robots.txt, homepages,
// feeds, catalogue pages, sitemaps and posts' pages alike. Six stops,
// each after some requests of its own, then `run --once` finishes the
// crawl; the sites see no politeness violation.
func TestStoppedRunKeepsValidators(t *testing.T) {
	t.Parallel()
	const (
		hosts    = 20
		posts    = 10
		minGap   = 50 * time.Millisecond
		settleIn = time.Minute
	)
	// The requests the sites see in each process before its SIGINT: the
	// sites go through their steps almost in step, so each stop falls on
	// another kind of read (robots.txt and homepages, feeds, catalogue
	// pages, sitemaps, pages).
	perStop := []int{15, 30, 45, 55, 65, 75}
	stops := len(perStop)
	web := simweb.New()
	t.Cleanup(web.Close)
	var names, want []string
	for i := range hosts {
		name := fmt.Sprintf("203.0.113.%d", 100+i)
		names = append(names, name)
		want = append(want, cutoffBlog(web.Host(name), posts)...)
	}
	// Every interval 0: each process reads the feeds and sitemaps again,
	// and must do so conditionally.
	env := binarytest.NewEnv(t).Proxy(t, web).
		Set("CORPUSBOT_FEED_INTERVAL", "0s").
		Set("CORPUSBOT_SITEMAP_INTERVAL", "0s")
	addSources(t, env, names...)

	bounds := []int{0} // where each process's requests begin in web.Requests()
	for i, n := range perStop {
		stop := env.Start(t, "run")
		target := bounds[len(bounds)-1] + n
		deadline := time.Now().Add(settleIn)
		for len(web.Requests()) < target && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		r := stop(10 * time.Second)
		if r.Code != 0 {
			t.Fatalf("run %d stopped with exit %d; stderr:\n%s", i+1, r.Code, r.Stderr)
		}
		bounds = append(bounds, len(web.Requests()))
		// Started again at once: the gaps hold across the restart too
		// (each site's timing goes with its checkout).
	}
	r := env.Run(t, 3*time.Minute, "run", "--once")
	if r.Code != 0 {
		t.Fatalf("run --once: exit %d; stderr:\n%s", r.Code, r.Stderr)
	}
	reqs := web.Requests()
	bounds = append(bounds, len(reqs))
	if bounds[stops] >= len(reqs) {
		t.Fatalf("the stops came after the crawl had ended (%d requests before the last run, none after): no cut to check", bounds[stops])
	}

	// Each process's requests to URLs that answered 200 in an earlier one.
	served := map[string]bool{} // host+URI answered 200 by an earlier process
	rereads, unconditional := 0, 0
	for p := 0; p+1 < len(bounds); p++ {
		mine := reqs[bounds[p]:bounds[p+1]]
		for _, q := range mine {
			if !served[q.Host+q.URI] {
				continue
			}
			rereads++
			if !conditional(q) {
				unconditional++
				t.Errorf("process %d asked %s%s again unconditionally (answered 200 with validators by an earlier process)", p+1, q.Host, q.URI)
			}
		}
		for _, q := range mine {
			if q.Status == http.StatusOK {
				served[q.Host+q.URI] = true
			}
		}
	}
	t.Logf("%d requests over %d processes (bounds %v); %d re-reads of URLs an earlier process read whole, %d unconditional",
		len(reqs), len(bounds)-1, bounds[1:], rereads, unconditional)
	if v := web.Violations("CorpusBot/1.0 (+https://corpus.blog/crawler)", "CorpusBot", func(string) time.Duration { return minGap }); len(v) > 0 {
		t.Errorf("%d politeness violations: %v", len(v), v)
	}
	wantIndexed(t, env, want)
}
