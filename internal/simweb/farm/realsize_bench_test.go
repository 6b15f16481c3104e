package farm

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// realSample is the URLs the SizesReal benchmarks ask for: the pages,
// homepages and feed pages of a sample of sites, the mix a first pass
// asks for.
func realSample(f *Farm) []string {
	var urls []string
	for i := range 20 {
		s := f.Site(host(i), 1)
		urls = append(urls, s.URL("/"))
		if s.Shape.Feed != FeedNone {
			urls = append(urls, s.FeedURL())
		}
		for n := 1; n <= min(s.Posts, 5); n++ {
			urls = append(urls, s.URL(s.Post(n).Path))
		}
	}
	return urls
}

// BenchmarkServeReal is what the farm costs per document at SizesReal.
func BenchmarkServeReal(b *testing.B) {
	f := New(Config{Now: newClock(day1).now, Sizes: SizesReal, HTTPS: true})
	urls := realSample(f)
	b.ReportAllocs()
	var bytes int64
	for b.Loop() {
		for _, u := range urls {
			bytes += int64(len(get(f, u).body))
		}
	}
	b.ReportMetric(float64(bytes)/float64(b.N)/float64(len(urls)), "bytes/doc")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(urls))/1e3, "µs/doc")
}

// discard is a ResponseWriter that keeps nothing of the body, as the
// server's connection does not: what BenchmarkServeRealDiscard allocates
// is the farm's alone, not a recorder's copy of every document.
type discard struct {
	h     http.Header
	bytes int64
}

func (d *discard) Header() http.Header { return d.h }
func (d *discard) WriteHeader(int)     {}
func (d *discard) Write(b []byte) (int, error) {
	d.bytes += int64(len(b))
	return len(b), nil
}

// BenchmarkServeRealDiscard is BenchmarkServeReal writing to a
// ResponseWriter that discards the body: the farm's own cost per request.
func BenchmarkServeRealDiscard(b *testing.B) {
	f := New(Config{Now: newClock(day1).now, Sizes: SizesReal, HTTPS: true})
	urls := realSample(f)
	type target struct {
		host string
		req  *http.Request
	}
	var targets []target
	for _, u := range urls {
		pu, err := url.Parse(u)
		if err != nil {
			b.Fatal(err)
		}
		targets = append(targets, target{pu.Hostname(), httptest.NewRequest(http.MethodGet, u, nil)})
	}
	b.ReportAllocs()
	d := &discard{}
	for b.Loop() {
		for _, t := range targets {
			d.h = http.Header{}
			f.Handler(t.host).ServeHTTP(d, t.req)
		}
	}
	b.ReportMetric(float64(d.bytes)/float64(b.N)/float64(len(urls)), "bytes/doc")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(urls))/1e3, "µs/doc")
}
