package robots_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/temoto/robotstxt"

	"corpus.blog/corpusbot/robots"
)

// The benchmark corpus: three files in testdata/bench and one generated file
// of about 500 KiB, the most a crawler is asked to read (RFC 9309 §2.5). Every
// corpus is matched against the same request paths, testdata/bench/urls.txt,
// by this package and by github.com/temoto/robotstxt, which get exactly the
// same bytes and the same path strings.

// benchAgent is the product token both libraries select groups for.
const benchAgent = "CorpusBot"

type benchCorpus struct {
	name string
	body []byte
}

// benchFiles are the committed corpora, in the order the benchmarks run them.
var benchFiles = []string{"wordpress", "news", "aibots"}

// largeCorpusSize is the size the generated corpus reaches before it stops.
const largeCorpusSize = 500 << 10

// largeCorpus is built once per test binary; building it is deterministic.
var largeCorpus = sync.OnceValue(func() []byte { return generateLargeRobots(20250314) })

// benchCorpora returns every corpus: the committed files, then "large".
func benchCorpora(tb testing.TB) []benchCorpus {
	tb.Helper()
	var cs []benchCorpus
	for _, name := range benchFiles {
		body, err := os.ReadFile(filepath.Join("testdata", "bench", name+".txt"))
		if err != nil {
			tb.Fatal(err)
		}
		cs = append(cs, benchCorpus{name, body})
	}
	return append(cs, benchCorpus{"large", largeCorpus()})
}

// benchPaths returns the request paths of testdata/bench/urls.txt: one per
// line, blank lines and lines starting with "#" skipped.
func benchPaths(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "bench", "urls.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var paths []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		paths = append(paths, line)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(paths) == 0 {
		tb.Fatal("testdata/bench/urls.txt holds no paths")
	}
	return paths
}

// Vocabulary of the generated corpus. No agent name starts with "c", so none
// is a prefix of "corpusbot" (temoto selects groups by prefix) and CorpusBot
// obeys the "*" groups in both libraries.
var (
	genAgentHeads = []string{"Alpha", "Nova", "Deep", "Quick", "Blue", "Iron", "Open", "Sky",
		"Data", "Web", "Meta", "Star", "Terra", "Hyper", "Echo", "Lumen", "Vector", "Pixel",
		"Orbit", "Zen", "Mega", "Pro", "Smart", "Rapid", "Hawk"}
	genAgentTails = []string{"Bot", "Crawler", "Spider", "Fetcher", "Agent", "Indexer", "Scraper", "Reader"}
	genAgentKinds = []string{"News", "Image", "AI", "Mobile", "Video", "Ads", "Search"}
	genSegments   = []string{"news", "blog", "shop", "products", "category", "tag", "author",
		"archive", "2019", "2020", "2021", "2022", "2023", "2024", "2025", "01", "06", "12",
		"en", "de", "fr", "es", "world", "sport", "business", "help", "support", "docs",
		"downloads", "media", "images", "video", "static", "assets", "user", "users", "profile",
		"settings", "cart", "checkout", "orders", "wishlist", "compare", "reviews", "print",
		"amp", "feed", "rss", "embed", "preview", "draft", "old", "legacy", "v1", "v2",
		"api", "internal", "private", "tmp", "cache", "search", "results", "filter", "page",
		"men", "women", "kids", "sale", "new-arrivals", "gift-cards", "store-locator",
		"events", "jobs", "careers", "press", "investors", "partners", "affiliates"}
	genEncoded = []string{"caf%C3%A9", "m%C3%BCnchen", "espa%C3%B1a", "%E6%96%B0%E9%97%BB",
		"%D0%BD%D0%BE%D0%B2%D0%BE%D1%81%D1%82%D0%B8", "old%20site", "a%2Fb", "%7Euser", "na%C3%AFve"}
	genNonASCII = []string{"café", "münchen", "españa", "新闻", "новости", "検索", "검색", "wiadomości", "économie"}
	genParams   = []string{"utm_source", "utm_medium", "utm_campaign", "sort", "order", "filter",
		"page", "sessionid", "ref", "fbclid", "gclid", "q", "s", "view", "format", "lang",
		"color", "size", "price_min", "price_max", "replytocom", "print", "share", "variant"}
	genExts = []string{"json", "xml", "pdf", "csv", "php", "zip", "doc", "xls", "bak", "sql", "gif", "js"}
)

// generateLargeRobots builds a robots.txt body of at least largeCorpusSize
// bytes from seed: groups naming one to three crawlers or "*", each with
// plain, wildcard, anchored, query, percent-encoded and non-ASCII rules,
// crawl-delays, comments, blank lines and sitemaps. The same seed always gives
// the same bytes. Every line is one both libraries read without error.
func generateLargeRobots(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	var b bytes.Buffer
	b.Grow(largeCorpusSize + 8<<10)
	b.WriteString("# Generated for corpusbot's benchmarks: a very large robots.txt.\n\n")

	path := func() string {
		var p strings.Builder
		for n := 1 + r.IntN(4); n > 0; n-- {
			p.WriteByte('/')
			switch x := r.IntN(20); {
			case x == 0:
				p.WriteString(pick(genEncoded))
			case x == 1:
				p.WriteString(pick(genNonASCII))
			case x == 2:
				fmt.Fprintf(&p, "%s-%d", pick(genSegments), r.IntN(10000))
			default:
				p.WriteString(pick(genSegments))
			}
		}
		if r.IntN(2) == 0 {
			p.WriteByte('/')
		}
		return p.String()
	}
	pattern := func() string {
		switch x := r.IntN(20); {
		case x < 9: // a plain prefix, the common case
			return path()
		case x < 11: // a wildcard between path segments
			return path() + "*/" + pick(genSegments) + "/"
		case x < 13: // an anchored file type, site-wide or under a path
			if r.IntN(2) == 0 {
				return "/*." + pick(genExts) + "$"
			}
			return path() + "*." + pick(genExts) + "$"
		case x < 15: // a query parameter anywhere
			return "/*?*" + pick(genParams) + "="
		case x < 17: // a query on one path
			return path() + "?" + pick(genParams) + "=" + fmt.Sprint(r.IntN(100))
		case x < 18: // an exact page
			return path() + "$"
		case x < 19: // two wildcards
			return "/" + pick(genSegments) + "/*/" + pick(genSegments) + "/*?" + pick(genParams) + "="
		default: // a pattern without a leading slash, as careless files write it
			return pick(genSegments) + "/" + pick(genSegments) + "/"
		}
	}

	for g := 0; b.Len() < largeCorpusSize; g++ {
		nRules := 5 + r.IntN(40)
		if g%8 == 0 {
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, "# Section %d: everyone\n", g)
			}
			b.WriteString("User-agent: *\n")
			nRules = 100 + r.IntN(200)
		} else {
			if r.IntN(4) == 0 {
				fmt.Fprintf(&b, "# Section %d\n", g)
			}
			for n := 1 + r.IntN(3); n > 0; n-- {
				name := pick(genAgentHeads) + pick(genAgentTails)
				if r.IntN(3) == 0 {
					name += "-" + pick(genAgentKinds)
				}
				if r.IntN(4) == 0 {
					name += fmt.Sprintf("/%d.%d", 1+r.IntN(5), r.IntN(10))
				}
				fmt.Fprintf(&b, "User-agent: %s\n", name)
			}
		}
		if r.IntN(5) == 0 {
			fmt.Fprintf(&b, "Crawl-delay: %d\n", 1+r.IntN(30))
		}
		for i := 0; i < nRules; i++ {
			kind := "Disallow"
			if r.IntN(4) == 0 {
				kind = "Allow"
			}
			fmt.Fprintf(&b, "%s: %s", kind, pattern())
			if r.IntN(25) == 0 {
				b.WriteString(" # legacy")
			}
			b.WriteByte('\n')
			if r.IntN(40) == 0 {
				b.WriteString("# ---\n")
			}
		}
		b.WriteByte('\n')
		if r.IntN(10) == 0 {
			fmt.Fprintf(&b, "Sitemap: https://www.large.example/sitemaps/%d.xml\n\n", g)
		}
	}
	return b.Bytes()
}

func TestBenchCorpusLarge(t *testing.T) {
	body := largeCorpus()
	if len(body) < largeCorpusSize || len(body) > largeCorpusSize+16<<10 {
		t.Fatalf("generated corpus is %d bytes, want about %d", len(body), largeCorpusSize)
	}
	if again := generateLargeRobots(20250314); !bytes.Equal(body, again) {
		t.Fatal("generating the corpus twice from one seed gave different bytes")
	}
	if _, err := robotstxt.FromBytes(body); err != nil {
		t.Fatalf("temoto cannot parse the generated corpus: %v", err)
	}
	rs := robots.Parse(body).For(benchAgent)
	if rs.Source() != robots.SourceWildcard {
		t.Fatalf("%s obeys %v rules in the generated corpus, want the * groups", benchAgent, rs.Source())
	}
}

// plainPath reports whether p is a path both libraries read the same way:
// printable ASCII that this package's normalisation leaves as it is (no
// escapes, no characters it would escape) and no "*", "$" or "#", which the
// libraries treat differently.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7F || strings.IndexByte("%*$#\"<>\\^`{|}", c) >= 0 {
			return false
		}
	}
	return true
}

// TestBenchCorpusAgreement checks that the benchmarks compare like with like:
// on wordpress.txt, whose two rules differ in length (so no tie) and hold no
// wildcard or escape, both libraries must give every plain path the same
// answer. For the other corpora the differences on plain paths are only
// logged: they come from deliberate choices (Allow wins ties here, "$"
// anchors only at the end, patterns are normalised) and do not change what
// the matchers have to do.
func TestBenchCorpusAgreement(t *testing.T) {
	paths := benchPaths(t)
	for _, c := range benchCorpora(t) {
		ours := robots.Parse(c.body).For(benchAgent)
		data, err := robotstxt.FromBytes(c.body)
		if err != nil {
			t.Fatalf("%s: temoto: %v", c.name, err)
		}
		theirs := data.FindGroup(benchAgent)
		var plain, allowed, differ int
		for _, p := range paths {
			if !plainPath(p) {
				continue
			}
			plain++
			d := ours.Decide(p)
			a, b := d.Allowed, theirs.Test(p)
			if a {
				allowed++
			}
			if a == b {
				continue
			}
			differ++
			if c.name == "wordpress" {
				t.Errorf("%s: %q: corpusbot allowed=%v, temoto allowed=%v", c.name, p, a, b)
			} else if differ <= 5 {
				t.Logf("%s: %q: corpusbot allowed=%v (%q), temoto allowed=%v", c.name, p, a, d.Rule(), b)
			}
		}
		t.Logf("%s: %d plain paths of %d, %d allowed by corpusbot, %d answered differently", c.name, plain, len(paths), allowed, differ)
		if c.name == "wordpress" && (plain < 100 || allowed == 0 || allowed == plain) {
			t.Errorf("wordpress: %d plain paths, %d allowed: too few to compare, or only one answer", plain, allowed)
		}
	}
}

var allocSink robots.Decision

// TestZeroAllocMatch holds Decide to its promise: no allocation for any path
// of the benchmark, whatever the corpus.
func TestZeroAllocMatch(t *testing.T) {
	paths := benchPaths(t)
	for _, c := range benchCorpora(t) {
		rs := robots.Parse(c.body).For(benchAgent)
		for _, p := range paths {
			if n := testing.AllocsPerRun(10, func() { allocSink = rs.Decide(p) }); n != 0 {
				t.Errorf("%s: Decide(%q) allocates %v times", c.name, p, n)
			}
		}
	}
}
