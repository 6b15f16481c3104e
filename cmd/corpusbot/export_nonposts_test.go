package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// nonpostsDir holds blogs whose sitemaps list more than posts; its README
// says how each is served (internal/crawl's TestNonPostSitemaps serves the
// same files).
var nonpostsDir = filepath.Join("..", "..", "internal", "crawl", "testdata", "nonposts")

var locPattern = regexp.MustCompile(`<loc>([^<]+)</loc>`)

// serveNonpostBlogs serves nonpostsDir on web and returns the hosts.
func serveNonpostBlogs(t *testing.T, web *simweb.Web) []string {
	t.Helper()
	dirs, err := os.ReadDir(nonpostsDir)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		hosts = append(hosts, d.Name())
		h := web.Host(d.Name())
		files, err := os.ReadDir(filepath.Join(nonpostsDir, d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		served := map[string]bool{"/": true}
		var locs []string
		for _, f := range files {
			raw, err := os.ReadFile(filepath.Join(nonpostsDir, d.Name(), f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			body := string(raw)
			switch name := f.Name(); {
			case name == "robots.txt":
				h.Robots(body)
			case name == "index.html":
				h.Put("/", "text/html; charset=utf-8", body)
			case name == "feed":
				h.Put("/feed", "application/rss+xml", body)
			case strings.HasSuffix(name, ".xml"):
				h.Put("/"+name, "application/xml", body)
				served["/"+name] = true
				for _, m := range locPattern.FindAllStringSubmatch(body, -1) {
					locs = append(locs, m[1])
				}
			}
		}
		for _, loc := range locs {
			u, err := url.Parse(loc)
			if err != nil {
				t.Fatal(err)
			}
			if p := u.RequestURI(); !served[p] {
				served[p] = true
				h.Put(p, "text/html; charset=utf-8", "<!doctype html><html><head><title>"+p+"</title></head><body><article><h1>"+p+
					"</h1><p>"+strings.Repeat("Some text of this page. ", 40)+"</p></article></body></html>")
			}
		}
	}
	return hosts
}

// TestExportSkippedByKind crawls the blogs of nonpostsDir on the simulated
// web into a SQLite file, then reads `export --sources` of it: each
// sitemap line has its kind, and each source line the entries and sitemaps
// it skipped, by kind. The servers saw no request for a sitemap the export
// says was skipped.
func TestExportSkippedByKind(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "c.db")
	clock := simweb.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	web := simweb.New(simweb.WithClock(clock.Now))
	defer web.Close()
	hosts := serveNonpostBlogs(t, web)

	s := config.Defaults()
	s.DB = dbPath
	c := newSimCrawl(t, web, clock, s, nil)
	for _, h := range hosts {
		c.add("http://" + h + "/")
	}
	c.once()
	c.close()
	c.polite()

	out, errOut, code := runCLI(t, nil, map[string]string{"CORPUSBOT_DB": dbPath}, "export", "--sources")
	if code != 0 {
		t.Fatalf("export --sources: %d %s", code, errOut)
	}
	type counts struct{ Pages, Taxonomies, Authors, Other int }
	type line struct {
		Source   string
		Sitemaps []struct{ URL, State, Via, Kind string }
		Skipped  counts
		// The JSON name is sitemaps_skipped.
		SitemapsSkipped counts `json:"sitemaps_skipped"`
	}
	want := map[string]struct {
		sitemaps         string // url kind state, of the top-level ones
		skipped, smSkips counts
	}{
		"http://wpcore.example/":  {"/wp-sitemap.xml unknown active", counts{}, counts{1, 2, 1, 0}},
		"http://yoast.example/":   {"/sitemap_index.xml unknown active", counts{Other: 1}, counts{1, 2, 1, 0}},
		"http://generic.example/": {"/sitemap.xml unknown active", counts{1, 3, 2, 3}, counts{}},
		"http://listed.example/": {"/post-sitemap.xml posts active,/page-sitemap.xml pages skipped," +
			"/category-sitemap.xml taxonomies skipped,/author-sitemap.xml authors skipped", counts{Other: 1}, counts{1, 1, 1, 0}},
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d source lines, want %d:\n%s", len(lines), len(want), out)
	}
	for _, raw := range lines {
		wantKeys(t, raw, "source", "state", "error", "robots", "refusal", "feeds", "sitemaps", "skipped", "sitemaps_skipped")
		for _, k := range []string{`"skipped":{"pages":`, `"sitemaps_skipped":{"pages":`} {
			if !strings.Contains(raw, k) {
				t.Errorf("line lacks %s: %s", k, raw)
			}
		}
		var l line
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		w, ok := want[l.Source]
		if !ok {
			t.Fatalf("unexpected source %s", l.Source)
		}
		var sms []string
		for _, m := range l.Sitemaps {
			u, _ := url.Parse(m.URL)
			sms = append(sms, u.Path+" "+m.Kind+" "+m.State)
			if m.State == model.SitemapSkipped {
				for _, r := range web.RequestsTo(u.Hostname()) {
					if r.URI == u.RequestURI() {
						t.Errorf("%s exported as skipped, but requested", m.URL)
					}
				}
			}
		}
		if got := strings.Join(sms, ","); got != w.sitemaps {
			t.Errorf("%s sitemaps %q, want %q", l.Source, got, w.sitemaps)
		}
		if l.Skipped != w.skipped || l.SitemapsSkipped != w.smSkips {
			t.Errorf("%s skipped %+v, sitemaps_skipped %+v; want %+v, %+v", l.Source, l.Skipped, l.SitemapsSkipped, w.skipped, w.smSkips)
		}
	}
}
