package fetch_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/memtest"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/sitemap"
)

// BenchmarkSitemapFetch reads the 50,000-URL sitemap of TestSitemapOverBodyMax
// (8.6 MB) through the fetcher from the simulated web, in each form it is
// served (plain, Content-Encoding: gzip, a .gz file), two ways: streamed
// into sitemap.Read as the crawler does (read=stream), or held whole in
// Result.Body and then parsed (read=buffered). MB/s counts the decoded
// document. peak-heap-MiB is how far the heap rose during one fetch and
// parse (memtest.PeakHeap, outside the timed loop); the sitemap's bytes,
// served by the test's own server, were in memory before and are not
// counted.
func BenchmarkSitemapFetch(b *testing.B) {
	doc := bigSitemap("big.example", sitemap.DefaultMaxEntries)
	r := newRig(b, false, longReads)
	h := r.web.Host("big.example")
	h.Robots("User-agent: *\nAllow: /\n")
	for _, form := range sitemapForms(doc) {
		h.Handle(form.path, form.handler)
		u := h.URL(form.path)
		count := func(sample func()) func(sitemap.Entry) error {
			n := 0
			return func(sitemap.Entry) error {
				if n++; n%256 == 0 {
					sample()
				}
				return nil
			}
		}
		reads := map[string]func(sample func()) (fetch.Result, sitemap.Summary){
			"stream": func(sample func()) (res fetch.Result, sum sitemap.Summary) {
				res = r.f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: model.PurposeSitemap,
					Stream: func(_ string, body io.Reader) { sum, _ = sitemap.Read(body, sitemap.Options{}, count(sample)) }})
				return res, sum
			},
			"buffered": func(sample func()) (res fetch.Result, sum sitemap.Summary) {
				res = r.get(u, model.PurposeSitemap)
				sample()
				sum, _ = sitemap.Read(bytes.NewReader(res.Body), sitemap.Options{}, count(sample))
				return res, sum
			},
		}
		for _, mode := range []string{"stream", "buffered"} {
			read := reads[mode]
			check := func(b *testing.B, res fetch.Result, sum sitemap.Summary) {
				if res.Outcome != model.OutcomeFetched || sum.URLs != sitemap.DefaultMaxEntries || !sum.Whole() {
					b.Fatalf("%s %v: %+v", res.Outcome, res.Err, sum)
				}
			}
			var res fetch.Result
			var sum sitemap.Summary
			res, sum = read(func() {}) // robots.txt read, connections warm
			check(b, res, sum)
			peak := memtest.PeakHeap(func(sample func()) { res, sum = read(sample) })
			check(b, res, sum)
			b.Run(form.name+"/read="+mode, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					res, sum := read(func() {})
					check(b, res, sum)
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}
