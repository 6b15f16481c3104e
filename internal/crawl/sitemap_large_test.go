package crawl_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/memtest"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// largeSitemap is a urlset listing the given post numbers of host, about
// 175 bytes an entry: 50,000 make an 8.6 MB sitemap, over BODY_MAX.
func largeSitemap(host string, posts []int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, i := range posts {
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2025-%02d-%02dT10:00:00+00:00</lastmod><changefreq>weekly</changefreq></url>\n",
			largePost(host, i), 1+i%12, 1+i%28)
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func largePost(host string, i int) string {
	return fmt.Sprintf("http://%s/%d/%02d/a-post-with-a-fairly-long-title-number-%06d/", host, 2010+i%16, 1+i%12, i)
}

func numbers(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	_, _ = z.Write(b)
	_ = z.Close()
	return buf.Bytes()
}

// serveBytes serves body as it is with the given headers.
func serveBytes(body []byte, header ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = w.Write(body)
	})
}

// sitemapWorld is a world whose fetcher allows a minute an exchange: under
// the race detector, inflating and parsing 8 MB takes seconds.
func sitemapWorld(t testing.TB) *world {
	w := newWorld(t, "")
	rewire(w, func(o *fetch.Options) { o.Timeouts.Total = time.Minute })
	return w
}

// postsOf counts the posts of a source, by state.
func postsOf(t testing.TB, w *world, sourceID int64) map[string]int {
	out := map[string]int{}
	err := w.db.EachPost(context.Background(), func(p store.Post) error {
		if p.SourceID == sourceID {
			out[p.State]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readSitemaps discovers src's sitemaps and reads each, as the sitemap
// steps of a run do, without the pages they make due.
func readSitemaps(t testing.TB, w *world, src store.Source) []store.Sitemap {
	ctx := context.Background()
	if err := w.c.DiscoverSitemaps(ctx, src); err != nil {
		t.Fatal(err)
	}
	sms, err := w.db.SourceSitemaps(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sm := range sms {
		if err := w.c.ReadSitemap(ctx, sm); err != nil {
			t.Fatal(err)
		}
	}
	sms, err = w.db.SourceSitemaps(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	return sms
}

// A 50,000-URL sitemap of 8.6 MB, over BODY_MAX, is discovered and read
// whole whether served plain (found at /sitemap.xml), with
// Content-Encoding: gzip (named in robots.txt) or as a .gz file (found at
// /sitemap.xml.gz): all 50,000 entries are stored.
func TestLargeSitemapStored(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("stores 3 × 50,000 URLs (skipped with -short and under the race detector)")
	}
	const host = "big.example"
	doc := largeSitemap(host, numbers(0, 50_000))
	for _, tc := range []struct {
		name, path, robots string
		handler            http.Handler
	}{
		{"plain", "/sitemap.xml", "", serveBytes(doc, "Content-Type", "application/xml")},
		{"content-encoding-gzip", "/sitemaps/all.xml", "Sitemap: http://" + host + "/sitemaps/all.xml\n",
			serveBytes(gzipBytes(doc), "Content-Type", "application/xml", "Content-Encoding", "gzip")},
		{"gz-file", "/sitemap.xml.gz", "", serveBytes(gzipBytes(doc), "Content-Type", "application/x-gzip")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := sitemapWorld(t)
			h := w.web.Host(host)
			h.Robots("User-agent: *\nAllow: /\n" + tc.robots)
			h.Put("/", htmlType, homepage())
			h.Handle(tc.path, tc.handler)
			src, _, err := w.db.AddSource(context.Background(), "http://"+host+"/", w.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			sms := readSitemaps(t, w, src)
			if len(sms) != 1 || sms[0].URL != h.URL(tc.path) || sms[0].State != "active" {
				t.Fatalf("sitemaps %+v", sms)
			}
			if got := postsOf(t, w, src.ID); got[model.PostPending] != 50_000 || len(got) != 1 {
				t.Errorf("posts by state %v, want 50,000 pending", got)
			}
			for _, i := range []int{0, 24_999, 49_999} {
				if p := w.post(largePost(host, i)); p.Lastmod.IsZero() {
					t.Errorf("%s: no lastmod", p.URL)
				}
			}
			w.clean()
		})
	}
}

// A truncated sitemap keeps what it read and marks nothing removed: the
// URLs past the cut are not known to be gone. A whole read still removes.
func TestTruncatedSitemapRemovesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 50 MB")
	}
	const host = "grown.example"
	w := sitemapWorld(t)
	h := w.web.Host(host)
	h.Robots("User-agent: *\nAllow: /\nSitemap: http://" + host + "/sitemap.xml\n")
	h.Put("/sitemap.xml", "application/xml", string(largeSitemap(host, numbers(0, 100))))
	src, _, err := w.db.AddSource(context.Background(), "http://"+host+"/", w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	readSitemaps(t, w, src)
	if got := postsOf(t, w, src.ID); got[model.PostPending] != 100 {
		t.Fatalf("day 1: %v", got)
	}

	// Day 2: 50 new posts listed first, then 51 MB of comment, then the
	// first 100, which now lie past the 50 MB cut.
	w.clock.Advance(25 * time.Hour)
	h.Handle("/sitemap.xml", http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "application/xml")
		rw.Header().Set("ETag", `"day2"`) // stored, so that day 3's re-read is not answered 304
		old := largeSitemap(host, numbers(0, 100))
		writePastLimit(rw, largeSitemap(host, numbers(100, 150)), old[bytes.Index(old, []byte("<url>")):])
	}))
	sms := readSitemaps(t, w, src)
	if got := postsOf(t, w, src.ID); got[model.PostPending] != 150 || got[model.PostRemoved] != 0 {
		t.Errorf("day 2, truncated: %v, want 150 pending and none removed", got)
	}
	if len(sms) != 1 || sms[0].State != "active" {
		t.Errorf("sitemap after a truncated read: %+v", sms)
	}

	// Day 3: a whole read without post 0 removes it, so the test above
	// could have seen a removal.
	w.clock.Advance(25 * time.Hour)
	h.Put("/sitemap.xml", "application/xml", string(largeSitemap(host, numbers(1, 150))))
	readSitemaps(t, w, src)
	if p := w.post(largePost(host, 0)); p.State != model.PostRemoved {
		t.Errorf("day 3, whole: post 0 is %s, want removed", p.State)
	}
	if p := w.post(largePost(host, 1)); p.State != model.PostPending {
		t.Errorf("day 3, whole: post 1 is %s, want pending", p.State)
	}
}

// BenchmarkReadLargeSitemap is the crawler's whole read of the 50,000-URL
// sitemap (8.6 MB, over BODY_MAX) in each form: fetched, parsed as it
// arrives, and ingested into the SQLite store. peak-heap-MiB is how far the
// heap rose during one read (memtest.PeakHeap, outside the timed loop),
// the 50,000 URLs the crawler holds for the store included.
func BenchmarkReadLargeSitemap(b *testing.B) {
	const host = "big.example"
	doc := largeSitemap(host, numbers(0, 50_000))
	z := gzipBytes(doc)
	for _, tc := range []struct {
		name    string
		handler http.Handler
	}{
		{"plain", serveBytes(doc, "Content-Type", "application/xml")},
		{"content-encoding-gzip", serveBytes(z, "Content-Type", "application/xml", "Content-Encoding", "gzip")},
		{"gz-file", serveBytes(z, "Content-Type", "application/x-gzip")},
	} {
		w := sitemapWorld(b)
		h := w.web.Host(host)
		h.Robots("User-agent: *\nAllow: /\n")
		h.Handle("/sitemap", tc.handler)
		ctx := context.Background()
		src, _, err := w.db.AddSource(ctx, "http://"+host+"/", w.clock.Now())
		if err != nil {
			b.Fatal(err)
		}
		sm, err := w.db.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: h.URL("/sitemap"), Via: model.ViaRobots})
		if err != nil {
			b.Fatal(err)
		}
		read := func() {
			if err := w.c.ReadSitemap(ctx, sm); err != nil {
				b.Fatal(err)
			}
		}
		read() // robots.txt, and the 50,000 posts created: later reads find them
		peak := memtest.PeakHeap(func(func()) { read() })
		if got := postsOf(b, w, src.ID); got[model.PostPending] != 50_000 {
			b.Fatalf("posts %v", got)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				read()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// writePastLimit writes the sitemap doc without its closing tag, then 51
// MB of comment, which carries it past the protocol's 50 MB cut, then
// tail (entries the cut hides, and the closing tag).
func writePastLimit(w io.Writer, doc, tail []byte) {
	end := bytes.LastIndex(doc, []byte("</urlset>"))
	if _, err := w.Write(doc[:end]); err != nil {
		return
	}
	_, _ = io.WriteString(w, "<!--")
	filler := bytes.Repeat([]byte("x"), 1<<20)
	for range 51 {
		if _, err := w.Write(filler); err != nil {
			return
		}
	}
	_, _ = io.WriteString(w, "-->")
	_, _ = w.Write(tail)
}
