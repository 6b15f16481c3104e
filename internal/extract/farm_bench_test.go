package extract

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/simweb/farm"
)

// farmPage is one document the farm serves, as the crawler gets it.
type farmPage struct {
	body []byte
	u    *url.URL
	ct   string
}

// farmRealPages are the homepages and first posts of 20 farm sites at
// farm.SizesReal (50–500 KB pages), over https: the pages a seed's first
// pass extracts, at the sizes the crawl benchmarks serve.
func farmRealPages(tb testing.TB) []farmPage {
	tb.Helper()
	day1 := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	f := farm.New(farm.Config{Now: func() time.Time { return day1 }, Sizes: farm.SizesReal, HTTPS: true})
	var pages []farmPage
	for i := range 20 {
		s := f.Site(fmt.Sprintf("blog%d.example", i), 1)
		urls := []string{s.URL("/")}
		for n := 1; n <= min(s.Posts, 3); n++ {
			urls = append(urls, s.URL(s.Post(n).Path))
		}
		for _, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil {
				tb.Fatal(err)
			}
			rec := httptest.NewRecorder()
			f.Handler(u.Hostname()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, raw, nil))
			if rec.Code != http.StatusOK {
				continue // a site that refuses crawlers, or is gone
			}
			pages = append(pages, farmPage{rec.Body.Bytes(), u, rec.Header().Get("Content-Type")})
		}
	}
	return pages
}

// farmSink keeps BenchmarkFarmReal's results alive.
var farmSink Page

// BenchmarkFarmReal reads the farm's real-size pages (farmRealPages) once
// per iteration: the figure that follows the crawl's extraction cost.
func BenchmarkFarmReal(b *testing.B) {
	pages := farmRealPages(b)
	var size int64
	for _, p := range pages {
		size += int64(len(p.body))
	}
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		for _, p := range pages {
			var err error
			if farmSink, err = ParseResponse(p.body, p.u, p.ct, "CorpusBot"); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages)), "ns/page")
}
