package reextract_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/reextract"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/warc"
)

var (
	bg = context.Background()
	t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

func page(title, text string) []byte {
	return []byte(`<!doctype html><html lang="en"><head><title>` + title + `</title><meta name="author" content="Ada"></head><body><article><h1>` +
		title + `</h1><p>` + text + `</p><p>` + strings.Repeat("More words of the post itself, said plainly. ", 12) + `</p></article></body></html>`)
}

type fixture struct {
	db    *store.DB
	dir   string // the WARC files
	pages *crawl.Crawler
}

// newFixture: a store with one source (blog.example) and its posts /a, /b,
// /c, /moved (stored under /new after a permanent redirect), all indexed
// with wrong text; another source (other.example) with /x.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	db, err := sqlite.Open(bg, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db.DB, dir: t.TempDir()}
	s := config.Defaults()
	f.pages = crawl.New(crawl.Config{Store: db.DB, Settings: s}) // no Fetcher: nothing can be sent
	for _, site := range []struct {
		home  string
		posts []string
	}{{"https://blog.example/", []string{"/a", "/b", "/c", "/new"}}, {"https://other.example/", []string{"/x"}}} {
		src, _, err := db.AddSource(bg, site.home, t0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range site.posts {
			u := strings.TrimSuffix(site.home, "/") + p
			if _, err := db.AddPosts(bg, []store.NewPost{{URL: u, SourceID: src.ID, Seen: t0}}); err != nil {
				t.Fatal(err)
			}
			post, err := db.Post(bg, u)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.SavePage(bg, store.PageResult{PostID: post.ID, State: model.PostIndexed, Text: "wrong", TextFrom: model.TextFromPage, Fetched: t0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return f
}

func (f *fixture) write(t *testing.T, xs ...warc.Exchange) string {
	t.Helper()
	w, err := warc.Open(f.dir, warc.Options{Prefix: "t" + filepathSafe(t.Name())})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if x.ResponseHeader == nil {
			x.ResponseHeader = http.Header{"Content-Type": {"text/html; charset=utf-8"}}
		}
		if err := w.Write(bg, x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Files()[0]
}

func filepathSafe(s string) string { return strings.NewReplacer("/", "-", " ", "-").Replace(s) }

func (f *fixture) text(t *testing.T, u string) string {
	t.Helper()
	p, err := f.db.Post(bg, u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Text
}

func (f *fixture) run(t *testing.T, o reextract.Options) (reextract.Summary, []string, error) {
	var warned []string
	o.Store, o.Pages, o.BodyMax = f.db, f.pages, config.Defaults().BodyMax
	o.Warn = func(l string) { warned = append(warned, l) }
	if o.Paths == nil {
		o.Paths = []string{f.dir}
	}
	sum, err := reextract.Run(bg, o)
	return sum, warned, err
}

func TestRebuild(t *testing.T) {
	f := newFixture(t)
	f.write(t,
		warc.Exchange{URL: "https://blog.example/a", Status: 200, Body: page("A", "Old body of a."), Fetched: t0},
		warc.Exchange{URL: "https://blog.example/a", Status: 200, Body: page("A", "Newest body of a."), Fetched: t0.Add(time.Hour)},
		warc.Exchange{URL: "https://blog.example/a", Status: 304, Fetched: t0.Add(2 * time.Hour)},
		warc.Exchange{URL: "https://blog.example/b", Status: 404, Fetched: t0},
		warc.Exchange{URL: "https://blog.example/moved", Status: 301, Fetched: t0,
			ResponseHeader: http.Header{"Location": {"/new"}}},
		warc.Exchange{URL: "https://blog.example/new", Status: 200, Body: page("New", "The body of new."), Fetched: t0},
		warc.Exchange{URL: "https://stranger.example/s", Status: 200, Body: page("S", "Not ours."), Fetched: t0},
		warc.Exchange{URL: "https://other.example/x", Status: 200, Body: page("X", "The body of x."), Fetched: t0},
		warc.Exchange{URL: "https://blog.example/c", Status: 200, Body: []byte("%PDF-1.4"), Fetched: t0,
			ResponseHeader: http.Header{"Content-Type": {"application/pdf"}}},
	)
	sum, warned, err := f.run(t, reextract.Options{})
	if err != nil || len(warned) != 0 {
		t.Fatalf("%v %v", err, warned)
	}
	if got := f.text(t, "https://blog.example/a"); !strings.Contains(got, "Newest body of a.") {
		t.Errorf("/a: %q, want the newest record's text", got)
	}
	if got := f.text(t, "https://blog.example/new"); !strings.Contains(got, "The body of new.") {
		t.Errorf("/new: %q", got)
	}
	for _, u := range []string{"https://blog.example/b", "https://blog.example/c"} {
		if got := f.text(t, u); got != "wrong" {
			t.Errorf("%s: %q, want it left alone", u, got)
		}
	}
	p, _ := f.db.Post(bg, "https://blog.example/a")
	if p.Author != "Ada" || p.Language != "en" {
		t.Errorf("/a: author %q language %q", p.Author, p.Language)
	}
	// /a, /new (through /moved and itself), /x updated; stranger unknown;
	// /b (404), /c (pdf) skipped.
	want := reextract.Summary{Files: 1, Pages: 9, URLs: 7, Updated: 3, Skipped: 3, Unknown: 1}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	again, _, err := f.run(t, reextract.Options{})
	if err != nil || again.Updated != 0 || again.Unchanged != 3 {
		t.Errorf("second run: %+v %v, want 3 unchanged", again, err)
	}
}

func TestRebuildOneSite(t *testing.T) {
	f := newFixture(t)
	f.write(t,
		warc.Exchange{URL: "https://blog.example/a", Status: 200, Body: page("A", "Body of a."), Fetched: t0},
		warc.Exchange{URL: "https://other.example/x", Status: 200, Body: page("X", "Body of x."), Fetched: t0},
	)
	other, _ := f.db.Post(bg, "https://other.example/x")
	sum, _, err := f.run(t, reextract.Options{Sources: map[int64]bool{other.SourceID: true}})
	if err != nil || sum.Updated != 1 || sum.Skipped != 1 {
		t.Fatalf("%+v %v", sum, err)
	}
	if f.text(t, "https://blog.example/a") != "wrong" || !strings.Contains(f.text(t, "https://other.example/x"), "Body of x.") {
		t.Error("--site: the other site's post changed, or its own did not")
	}
}

// A torn file: its records before the tear are used, and one line says so.
// A file that is not WARC: an error, and nothing changed.
func TestRebuildBadFiles(t *testing.T) {
	f := newFixture(t)
	path := f.write(t,
		warc.Exchange{URL: "https://blog.example/a", Status: 200, Body: page("A", "Body of a."), Fetched: t0},
		warc.Exchange{URL: "https://other.example/x", Status: 200, Body: page("X", "Body of x."), Fetched: t0},
	)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-200], 0o644); err != nil {
		t.Fatal(err)
	}
	sum, warned, err := f.run(t, reextract.Options{})
	if err != nil || len(warned) != 1 || !strings.Contains(warned[0], "torn") || len(sum.Torn) != 1 {
		t.Fatalf("torn: %+v %q %v", sum, warned, err)
	}
	if !strings.Contains(f.text(t, "https://blog.example/a"), "Body of a.") || f.text(t, "https://other.example/x") != "wrong" {
		t.Error("torn: the record before the tear not used, or the one torn used")
	}

	g := newFixture(t)
	g.write(t, warc.Exchange{URL: "https://blog.example/a", Status: 200, Body: page("A", "Body of a."), Fetched: t0})
	if err := os.WriteFile(filepath.Join(g.dir, "z.warc.gz"), []byte("<html>not an archive</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = g.run(t, reextract.Options{})
	if !errors.Is(err, warc.ErrNotWARC) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("not WARC: %v", err)
	}
	if g.text(t, "https://blog.example/a") != "wrong" {
		t.Error("not WARC: something changed")
	}
	_, _, err = g.run(t, reextract.Options{Paths: []string{t.TempDir()}})
	if !errors.Is(err, reextract.ErrNoFiles) {
		t.Errorf("an empty directory: %v", err)
	}
}
