package farm

import "testing"

// BenchmarkServeReal is what the farm costs per document at SizesReal:
// the pages, homepages and feed pages of a sample of sites, the mix a
// first pass asks for.
func BenchmarkServeReal(b *testing.B) {
	f := New(Config{Now: newClock(day1).now, Sizes: SizesReal, HTTPS: true})
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
