package e2e

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestBinaryRefusesSourceWithPassword: sources add refuses a URL with a
// user name and password (exit non-zero, the reason on stderr, the
// password not repeated) and stores nothing; it refuses port 99999, and
// adds a loopback source with a warning.
func TestBinaryRefusesSourceWithPassword(t *testing.T) {
	t.Parallel()
	env := binarytest.NewEnv(t)
	r := env.Run(t, time.Minute, "sources", "add", "http://u:s3cret@203.0.113.30/")
	if r.Code == 0 || !strings.Contains(r.Stderr, "user name or password") || strings.Contains(r.Stderr+r.Stdout, "s3cret") {
		t.Fatalf("sources add with a password: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(env.DB()); err == nil {
		if e := env.Run(t, time.Minute, "export", "--sources"); e.Code != 0 || strings.TrimSpace(e.Stdout) != "" {
			t.Errorf("after the refusal, export --sources: exit %d, %q %q", e.Code, e.Stdout, e.Stderr)
		}
	}

	r = env.Run(t, time.Minute, "sources", "add", "http://x.example:99999/")
	if r.Code == 0 || !strings.Contains(r.Stderr, "invalid port") {
		t.Errorf("sources add with port 99999: exit %d, stderr %q", r.Code, r.Stderr)
	}

	r = env.Run(t, time.Minute, "sources", "add", "http://127.0.0.1/")
	if r.Code != 0 || !strings.Contains(r.Stderr, "warning") || !strings.Contains(r.Stderr, "127.0.0.1 is a loopback address") ||
		r.Stdout != "added http://127.0.0.1/\n" {
		t.Errorf("sources add of a loopback address: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	e := env.Run(t, time.Minute, "export", "--sources")
	if e.Code != 0 || len(binarytest.Lines(e.Stdout)) != 1 || !strings.Contains(e.Stdout, `"source":"http://127.0.0.1/"`) {
		t.Errorf("export --sources: exit %d, %q %q", e.Code, e.Stdout, e.Stderr)
	}
}

// TestBinarySendsNoAuthorization: a blog crawled through the proxy, whose
// homepage names its feed, robots.txt its sitemap and feed a post by a URL
// with a user name and password, and whose other post redirects to one,
// sees no request with an Authorization header; neither the export, the
// sources export nor the run's log holds the password.
func TestBinarySendsNoAuthorization(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	host := web.Host("203.0.113.31")
	urls := blog(host, 2)
	page := func(title string) string {
		return fmt.Sprintf(`<!doctype html><html><head><title>%s</title></head><body><article><h1>%s</h1><p>%s</p></article></body></html>`,
			title, title, strings.Repeat("Words of a real post, long enough to extract. ", 30))
	}
	host.Put("/posts/creds/", "text/html; charset=utf-8", page("Named with a password"))
	host.Handle("/posts/moved/", simweb.Redirect(http.StatusMovedPermanently, "http://mover:s3cret@203.0.113.31/posts/landed/"))
	host.Put("/posts/landed/", "text/html; charset=utf-8", page("Landed"))
	var items strings.Builder
	for i, u := range append(urls, "http://reader:s3cret@203.0.113.31/posts/creds/", host.URL("/posts/moved/")) {
		fmt.Fprintf(&items, `<item><title>Post %d</title><link>%s</link><description>Short %d</description></item>`, i, u, i)
	}
	host.Put("/feed.xml", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>`+
		host.URL("/")+`</link>`+items.String()+`</channel></rss>`)
	// The homepage names its feed, and robots.txt its sitemap, with a
	// user name and password.
	host.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>Blog</title>
<link rel="alternate" type="application/rss+xml" href="http://owner:s3cret@203.0.113.31/feed.xml"></head><body><p>A blog.</p></body></html>`)
	host.Robots("User-agent: *\nAllow: /\nSitemap: http://owner:s3cret@203.0.113.31/sitemap.xml\n")
	host.Put("/sitemap.xml", "application/xml", `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>`+
		urls[0]+`</loc></url></urlset>`)

	env := binarytest.NewEnv(t).Proxy(t, web)
	if r := env.Run(t, time.Minute, "sources", "add", "http://203.0.113.31/"); r.Code != 0 || r.Stderr != "" {
		t.Fatalf("sources add: %d %q", r.Code, r.Stderr)
	}
	run := env.Run(t, 2*time.Minute, "run", "--once")
	if run.Code != 0 {
		t.Fatalf("run --once: %d %s", run.Code, run.Stderr)
	}
	reqs := web.Requests()
	var asked []string
	for _, q := range reqs {
		asked = append(asked, q.URI)
		if a := q.Header.Values("Authorization"); len(a) > 0 {
			t.Errorf("%s%s was sent Authorization %q", q.Host, q.URI, a)
		}
	}
	for _, want := range []string{"/feed.xml", "/sitemap.xml", "/posts/creds/", "/posts/moved/", "/posts/landed/"} {
		if !strings.Contains(strings.Join(asked, " ")+" ", want+" ") {
			t.Errorf("%s never asked (asked %q)", want, asked)
		}
	}
	posts := env.Run(t, time.Minute, "export")
	sources := env.Run(t, time.Minute, "export", "--sources")
	if posts.Code != 0 || sources.Code != 0 {
		t.Fatalf("export: %d %s; export --sources: %d %s", posts.Code, posts.Stderr, sources.Code, sources.Stderr)
	}
	if !strings.Contains(posts.Stdout, `"url":"http://203.0.113.31/posts/creds/"`) {
		t.Errorf("the post named with a password is not exported under its URL without it:\n%s", posts.Stdout)
	}
	for _, want := range []string{`"url":"http://203.0.113.31/feed.xml"`, `"url":"http://203.0.113.31/sitemap.xml"`} {
		if !strings.Contains(sources.Stdout, want) {
			t.Errorf("export --sources lacks %s:\n%s", want, sources.Stdout)
		}
	}
	for name, out := range map[string]string{"export": posts.Stdout, "export --sources": sources.Stdout, "run's log": run.Stderr + run.Stdout} {
		if strings.Contains(out, "s3cret") {
			t.Errorf("%s holds the password:\n%s", name, out)
		}
	}
}
