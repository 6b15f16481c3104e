package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// exportedSource is what the identity checks read of a line of
// `export --sources`.
type exportedSource struct {
	Source string `json:"source"`
	State  string `json:"state"`
	Feeds  []struct {
		URL   string `json:"url"`
		State string `json:"state"`
	} `json:"feeds"`
}

func exportIdentitySources(t *testing.T, env *binarytest.Env) []exportedSource {
	t.Helper()
	r := env.Run(t, time.Minute, "export", "--sources")
	if r.Code != 0 {
		t.Fatalf("export --sources: %d %s", r.Code, r.Stderr)
	}
	var out []exportedSource
	for _, line := range binarytest.Lines(r.Stdout) {
		var s exportedSource
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("export --sources line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// TestSourcesAddOneSourcePerHomepage: every spelling of one homepage (host
// case, a default port, a fragment, a final slash, an international name
// in Unicode, percent-encoded and punycode), given on the command line in
// one call or several, or in a file, is one source, stored with its host in
// punycode.
func TestSourcesAddOneSourcePerHomepage(t *testing.T) {
	t.Parallel()
	env := binarytest.NewEnv(t)
	r := env.Run(t, time.Minute, "sources", "add",
		"https://Example.com/", "https://example.com/", "https://example.com:443/", "https://example.com/#about",
		"https://bücher.example/", "https://b%C3%BCcher.example/", "https://xn--bcher-kva.example/")
	if r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}
	want := []string{
		"added https://example.com/", "known https://example.com/", "known https://example.com/", "known https://example.com/",
		"added https://xn--bcher-kva.example/", "known https://xn--bcher-kva.example/", "known https://xn--bcher-kva.example/",
	}
	if got := binarytest.Lines(r.Stdout); !slices.Equal(got, want) {
		t.Errorf("sources add printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Again, in another call.
	if r := env.Run(t, time.Minute, "sources", "add", "HTTPS://EXAMPLE.COM", "https://XN--BCHER-KVA.example:443/#top"); r.Code != 0 ||
		strings.Contains(r.Stdout, "added") {
		t.Errorf("second sources add: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// And in a file: a plain list, then an OPML document.
	list := filepath.Join(env.Dir, "list.txt")
	if err := os.WriteFile(list, []byte("https://example.com\nhttps://bücher.example/#x\nhttps://example.com/blog/\nhttps://EXAMPLE.com/blog\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = env.Run(t, time.Minute, "sources", "add", "--file", list)
	if r.Code != 0 || !strings.Contains(r.Stdout, "1 added, 3 known, 0 rejected") {
		t.Errorf("sources add --file list: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	opml := filepath.Join(env.Dir, "subs.opml")
	if err := os.WriteFile(opml, []byte(`<?xml version="1.0"?><opml version="1.0"><body>
<outline text="Upper" htmlUrl="https://EXAMPLE.com:443/" xmlUrl="https://example.com/feed"/>
<outline text="Books" htmlUrl="https://b%C3%BCcher.example" xmlUrl="https://bücher.example/feed"/>
</body></opml>`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = env.Run(t, time.Minute, "sources", "add", "--file", opml)
	if r.Code != 0 || !strings.Contains(r.Stdout, "0 added, 2 known, 0 rejected") {
		t.Errorf("sources add --file opml: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	var got []string
	for _, s := range exportIdentitySources(t, env) {
		got = append(got, s.Source)
	}
	slices.Sort(got)
	if w := []string{"https://example.com/", "https://example.com/blog/", "https://xn--bcher-kva.example/"}; !slices.Equal(got, w) {
		t.Errorf("export --sources: %v, want %v", got, w)
	}
}

// TestSourcesAddMalformedOPML: an OPML export with an unescaped "<" and
// '"' in its titles is read outline by outline, with a warning, and an
// outline whose URL cannot be read is reported on its line.
func TestSourcesAddMalformedOPML(t *testing.T) {
	t.Parallel()
	env := binarytest.NewEnv(t)
	opml := filepath.Join(env.Dir, "broken.opml")
	if err := os.WriteFile(opml, []byte(`<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.0"><body>
<outline type="rss" text="C++ <3" xmlUrl="https://lt.example/feed.xml" htmlUrl="https://lt.example/"/>
<outline type="rss" text="The "best" blog" xmlUrl="https://quote.example/feed/" htmlUrl="https://quote.example/"/>
<outline type="rss" text="Broken" xmlUrl="https://broken.example/feed
/>
<outline type="rss" text="Fine &amp; well" xmlUrl="https://fine.example/rss"/>
</body></opml>
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := env.Run(t, time.Minute, "sources", "add", "--file", opml)
	if r.Code != 0 {
		t.Fatalf("sources add --file: %d %s", r.Code, r.Stderr)
	}
	for _, want := range []string{"added https://lt.example/", "added https://quote.example/", "added https://fine.example/rss",
		"rejected line 5: outline not readable", "3 added, 0 known, 1 rejected"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Stdout)
		}
	}
	if !strings.Contains(r.Stderr, "not well-formed XML (line 3") {
		t.Errorf("no warning of the malformed document on stderr:\n%s", r.Stderr)
	}
}

// sitemapGuesses counts the requests host had for the well-known sitemap
// paths (crawl.WellKnownSitemapPaths), by path.
func sitemapGuesses(web *simweb.Web, host string) map[string]int {
	guesses := map[string]int{}
	for _, r := range web.RequestsTo(host) {
		for _, p := range []string{"/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml",
			"/sitemap/sitemap.xml", "/sitemap.xml.gz", "/sitemap.txt", "/sitemaps/sitemap.xml"} {
			if r.URI == p {
				guesses[p]++
			}
		}
	}
	return guesses
}

// checkOneBlogSource: export --sources has one source, the blog's
// homepage, with its feed active; and the sitemap guesses were each sent
// once.
func checkOneBlogSource(t *testing.T, env *binarytest.Env, web *simweb.Web, host *simweb.Host) {
	t.Helper()
	srcs := exportIdentitySources(t, env)
	if len(srcs) != 1 {
		t.Fatalf("export --sources: %d sources, want 1: %+v", len(srcs), srcs)
	}
	s := srcs[0]
	if s.Source != host.URL("/") || s.State != "active" {
		t.Errorf("source %q state %q, want %q active", s.Source, s.State, host.URL("/"))
	}
	if len(s.Feeds) != 1 || s.Feeds[0].URL != host.URL("/feed.xml") || s.Feeds[0].State != "active" {
		t.Errorf("feeds %+v, want %s active", s.Feeds, host.URL("/feed.xml"))
	}
	guesses := sitemapGuesses(web, host.Name())
	if len(guesses) != 8 {
		t.Errorf("sitemap guesses %v: want each of the 8 paths once", guesses)
	}
	for p, n := range guesses {
		if n != 1 {
			t.Errorf("%s asked %d times, want once", p, n)
		}
	}
}

// TestBlogByFeedThenHomepage: a blog added by its feed's URL becomes the
// source of its homepage (the feed's channel link); adding the homepage
// afterwards finds it known, and the crawl keeps one source with its feed
// active, asking for the sitemap guesses once.
func TestBlogByFeedThenHomepage(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	host := web.Host("203.0.113.41")
	urls := blog(host, 3)
	env := binarytest.NewEnv(t).Proxy(t, web)
	if r := env.Run(t, time.Minute, "sources", "add", host.URL("/feed.xml")); r.Code != 0 {
		t.Fatalf("sources add feed: %d %s", r.Code, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	r := env.Run(t, time.Minute, "sources", "add", host.URL("/"))
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "known "+host.URL("/") {
		t.Errorf("sources add homepage after its feed: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("second run --once: %d %s", r.Code, r.Stderr)
	}
	checkOneBlogSource(t, env, web, host)
	r = env.Run(t, time.Minute, "export")
	if n := strings.Count(r.Stdout, `"state":"indexed"`); r.Code != 0 || n != len(urls) {
		t.Errorf("export: %d posts indexed, want %d:\n%s", n, len(urls), r.Stdout)
	}
}

// TestBlogByFeedAndHomepageInOneFile: an OPML file naming a blog once by
// its feed alone (no htmlUrl) and once by its homepage adds two sources,
// which the first crawl makes one: the homepage's, with the feed active,
// the sitemap guesses sent once.
func TestBlogByFeedAndHomepageInOneFile(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	host := web.Host("203.0.113.42")
	blog(host, 2)
	env := binarytest.NewEnv(t).Proxy(t, web)
	opml := filepath.Join(env.Dir, "subs.opml")
	if err := os.WriteFile(opml, []byte(`<?xml version="1.0"?><opml version="1.0"><body>
<outline type="rss" text="Blog (feed)" xmlUrl="`+host.URL("/feed.xml")+`"/>
<outline type="rss" text="Blog (home)" htmlUrl="`+host.URL("/")+`"/>
</body></opml>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := env.Run(t, time.Minute, "sources", "add", "--file", opml); r.Code != 0 || !strings.Contains(r.Stdout, "2 added") {
		t.Fatalf("sources add --file: %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	checkOneBlogSource(t, env, web, host)
}

// TestBlogByHomepageThenFeed: the other order. The homepage's source has
// found the feed; the source added later by the feed's URL is merged into
// it on its first discovery, and nothing is asked twice.
func TestBlogByHomepageThenFeed(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	host := web.Host("203.0.113.43")
	blog(host, 2)
	env := binarytest.NewEnv(t).Proxy(t, web)
	if r := env.Run(t, time.Minute, "sources", "add", host.URL("/")); r.Code != 0 {
		t.Fatalf("sources add homepage: %d %s", r.Code, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	if r := env.Run(t, time.Minute, "sources", "add", host.URL("/feed.xml")); r.Code != 0 {
		t.Fatalf("sources add feed: %d %s", r.Code, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("second run --once: %d %s", r.Code, r.Stderr)
	}
	checkOneBlogSource(t, env, web, host)
}
