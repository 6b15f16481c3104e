package app_test

import (
	"context"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/internal/warc/warctest"
)

var warcStart = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

// warcWorld is a simulated web of blogs: a farm population, whose
// documents are served plain, and one blog whose pages are served
// compressed (gzip, br), so that the archive's bodies are the decoded ones.
type warcWorld struct {
	clock *simweb.Clock
	web   *simweb.Web
	hosts []string
}

func newWarcWorld(t *testing.T) *warcWorld {
	t.Helper()
	w := &warcWorld{clock: simweb.NewClock(warcStart)}
	w.web = simweb.New(simweb.WithClock(w.clock.Now))
	t.Cleanup(w.web.Close)
	population := farm.New(farm.Config{Start: warcStart, Now: w.clock.Now, Seed: 18, MinPosts: 2, MaxPosts: 6})
	w.web.Fallback(population.Handler)
	for i := range 8 {
		w.hosts = append(w.hosts, fmt.Sprintf("blog%02d.example", i))
	}
	packed := w.web.Host("packed.example")
	packed.Robots("User-agent: *\nAllow: /\n")
	packed.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>Packed</title>`+
		`<link rel="alternate" type="application/rss+xml" href="/feed"></head><body><p>A blog served compressed.</p></body></html>`).Encode("gzip")
	var items strings.Builder
	for i, enc := range []string{"gzip", "br", "gzip", ""} {
		path := fmt.Sprintf("/2026/02/%02d/post-%d/", i+1, i+1)
		fmt.Fprintf(&items, "<item><title>Post %d</title><link>http://packed.example%s</link><guid>http://packed.example%s</guid>"+
			"<pubDate>%s</pubDate><description>Post %d, in short.</description></item>",
			i+1, path, path, warcStart.AddDate(0, 0, -10+i).Format(time.RFC1123Z), i+1)
		r := packed.Put(path, "text/html; charset=utf-8", fmt.Sprintf(`<!doctype html><html><head><title>Post %d</title></head>`+
			`<body><article><h1>Post %d</h1><p>%s</p></article></body></html>`, i+1, i+1, strings.Repeat(fmt.Sprintf("Words of post %d, served %q. ", i+1, enc), 60)))
		if enc != "" {
			r.Encode(enc)
		}
	}
	packed.Put("/feed", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>Packed</title>`+
		`<link>http://packed.example/</link>`+items.String()+`</channel></rss>`)
	w.hosts = append(w.hosts, "packed.example")
	return w
}

// crawl runs one round over the world with the settings, and returns the
// records of page fetches the fetcher reported, by outcome.
func (w *warcWorld) crawl(t *testing.T, s config.Settings) map[model.Outcome]int {
	t.Helper()
	ctx := context.Background()
	st, err := app.OpenStore(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	pages := map[model.Outcome]int{}
	// SlowAfter: the stepping clock moves for every site's sleep at once,
	// so it cannot time a response.
	wired, err := app.NewCrawl(st, app.Options{Settings: s, Clock: w.clock, SlowAfter: 1000 * time.Hour,
		Observe: func(r model.RequestRecord) {
			if r.Purpose == model.PurposePage {
				mu.Lock()
				pages[r.Outcome]++
				mu.Unlock()
			}
		},
		Network: app.Network{Resolver: w.web.Resolver(), Dial: w.web.Dial, Proxy: fetch.NoProxy, TLS: w.web.ClientTLS()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range w.hosts {
		if _, _, err := st.AddSource(ctx, "http://"+h+"/", w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := wired.Crawler.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wired.Close(); err != nil {
		t.Fatalf("closing the crawl: %v", err)
	}
	for _, v := range w.web.Violations(s.UserAgent, s.ProductToken(), func(string) time.Duration { return s.MinGap }) {
		t.Error(v)
	}
	return pages
}

// plainBody GETs u from the simulated web as a client that accepts no
// encoding: the body the server serves, uncompressed.
func (w *warcWorld) plainBody(t *testing.T, u string) []byte {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", w.web.Addr())
		},
		DisableCompression: true,
	}}
	defer client.CloseIdleConnections()
	res, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("GET %s: %d %q %v", u, res.StatusCode, res.Header.Get("Content-Encoding"), err)
	}
	return b
}

func sha1Base32(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// isPage says whether a request URI of the world is an HTML page: the
// homepages and the posts end in "/" and have no query; feeds (/feed,
// /?feed=rss2, their ?paged=N pages), sitemaps and robots.txt do not.
func isPage(uri string) bool {
	u, err := url.ParseRequestURI(uri)
	return err == nil && strings.HasSuffix(u.Path, "/") && u.RawQuery == ""
}

// TestWarcDirArchivesEveryPage crawls a simulated web with WARC_DIR set (a
// directory that does not exist yet) and reads every WARC file back with
// gowarc: one response record for each page a server answered 200, each
// for a URL the server served, each with the payload digest of the body
// that URL serves (decoded, for the pages sent compressed), and a request
// record beside it with the headers the server received.
func TestWarcDirArchivesEveryPage(t *testing.T) {
	w := newWarcWorld(t)
	s := config.Defaults()
	dir := t.TempDir()
	s.DB = filepath.Join(dir, "c.db")
	s.WarcDir = filepath.Join(dir, "archive", "warc")
	pages := w.crawl(t, s)

	// What the servers answered, before this test asks them anything.
	served := map[string]int{} // page URL -> 200s
	sentUA := map[string]string{}
	total, encoded := 0, 0
	for _, r := range w.web.Requests() {
		if r.Status != http.StatusOK || !isPage(r.URI) {
			continue
		}
		u := "http://" + r.Host + r.URI
		served[u]++
		sentUA[u] = r.Header.Get("User-Agent")
		total++
	}
	if total == 0 || pages[model.OutcomeFetched] != total {
		t.Fatalf("the servers answered %d page requests 200; the fetcher read %d pages (%v)", total, pages[model.OutcomeFetched], pages)
	}

	files, err := filepath.Glob(filepath.Join(s.WarcDir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no file in %s: %v", s.WarcDir, err)
	}
	responses := map[string]int{}
	for _, path := range files {
		if !strings.HasSuffix(path, ".warc.gz") {
			t.Errorf("%s: not a completed .warc.gz", path)
			continue
		}
		var records []gowarc.WarcRecord
		for _, rec := range warctest.ReadFile(t, path) {
			records = append(records, rec.WarcRecord)
		}
		if len(records) == 0 || records[0].Type() != gowarc.Warcinfo {
			t.Fatalf("%s does not begin with a warcinfo record", path)
		}
		byID := map[string]gowarc.WarcRecord{}
		for _, rec := range records {
			byID[rec.RecordId()] = rec
		}
		for _, rec := range records[1:] {
			if rec.Type() != gowarc.Response {
				continue
			}
			target := rec.WarcHeader().Get(gowarc.WarcTargetURI)
			if served[target] == 0 {
				t.Errorf("%s: a response for %s, which no server answered 200", path, target)
				continue
			}
			responses[target]++
			body := w.plainBody(t, target)
			if got, want := rec.WarcHeader().Get(gowarc.WarcPayloadDigest), sha1Base32(body); got != want {
				t.Errorf("%s: payload digest %s, want %s (of the %d bytes it serves)", target, got, want, len(body))
			}
			// Dated on the crawl's clock, the simulated one.
			if date, err := rec.WarcHeader().GetTime(gowarc.WarcDate); err != nil || date.Before(warcStart) || date.After(w.clock.Now()) {
				t.Errorf("%s: WARC-Date %v (%v), not within the simulated crawl", target, date, err)
			}
			block := rec.Block().(gowarc.HttpResponseBlock)
			if enc := (*block.HttpHeader()).Get("X-Original-Content-Encoding"); enc != "" {
				encoded++
				if (*block.HttpHeader()).Get("Content-Encoding") != "" {
					t.Errorf("%s: recorded decoded, still says Content-Encoding %s", target, enc)
				}
			}
			req, ok := byID[rec.WarcHeader().GetId(gowarc.WarcConcurrentTo)]
			if !ok || req.Type() != gowarc.Request || req.WarcHeader().Get(gowarc.WarcTargetURI) != target {
				t.Errorf("%s: no request record beside its response", target)
				continue
			}
			if ua := (*req.Block().(gowarc.HttpRequestBlock).HttpHeader()).Get("User-Agent"); ua != sentUA[target] || ua != s.UserAgent {
				t.Errorf("%s: request recorded with User-Agent %q; the server received %q", target, ua, sentUA[target])
			}
		}
		for _, rec := range records {
			rec.Close()
		}
	}
	got := 0
	for u, n := range responses {
		got += n
		if n != served[u] {
			t.Errorf("%s: %d response records, the server answered it %d times", u, n, served[u])
		}
	}
	if got != total {
		t.Errorf("%d response records for the %d page requests the servers answered 200", got, total)
	}
	if encoded != 4 { // packed.example's homepage and three of its posts
		t.Errorf("%d responses recorded from a compressed body, want 4", encoded)
	}
	t.Logf("%d pages archived in %d file(s), %d of them sent compressed; page fetches %v", got, len(files), encoded, pages)
}

// TestWarcDirOffWritesNothing: with WARC_DIR off, the same crawl writes
// no file anywhere: the directory holds the database and nothing else.
func TestWarcDirOffWritesNothing(t *testing.T) {
	w := newWarcWorld(t)
	s := config.Defaults()
	dir := t.TempDir()
	s.DB, s.WarcDir = filepath.Join(dir, "c.db"), config.WarcDirOff
	pages := w.crawl(t, s)
	if pages[model.OutcomeFetched] == 0 {
		t.Fatal("no page fetched: the test proves nothing")
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), "warc") {
			t.Errorf("%s written with WARC_DIR off", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if wd, _ := os.Getwd(); wd != "" {
		if m, _ := filepath.Glob(filepath.Join(wd, "*.warc*")); len(m) > 0 {
			t.Errorf("WARC files in the working directory: %v", m)
		}
	}
}

// TestWarcDirDefaultBesideDB: with WARC_DIR not given, the pages are kept
// beside the database, in DB + ".warc".
func TestWarcDirDefaultBesideDB(t *testing.T) {
	w := newWarcWorld(t)
	s := config.Defaults()
	dir := t.TempDir()
	s.DB = filepath.Join(dir, "c.db")
	w.crawl(t, s)
	files, _ := filepath.Glob(filepath.Join(dir, "c.db.warc", "*.warc.gz"))
	if len(files) == 0 {
		t.Errorf("no WARC file in %s.warc with WARC_DIR not given", s.DB)
	}
}
