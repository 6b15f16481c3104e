package crawl_test

import (
	"context"
	"net/http"
	"testing"
)

// BenchmarkDay2 measures the second day of the simulated corpus (one new
// and one modified post among four blogs): the requests it costs per new or
// modified post, and the bytes the 304s saved (each 304 counted at the size
// of the body its URL last had with a 200).
func BenchmarkDay2(b *testing.B) {
	ctx := context.Background()
	var reqs, saved, notModified int
	for b.Loop() {
		b.StopTimer()
		w := newWorld(b, "")
		bl := buildBlogs(w.web)
		for _, h := range []string{"alpha.example", "beta.example", "gamma.example", "delta.example"} {
			if _, _, err := w.db.AddSource(ctx, "http://"+h+"/", w.clock.Now()); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.c.Once(ctx); err != nil {
			b.Fatal(err)
		}
		size := map[string]int64{}
		for _, r := range w.web.Requests() {
			if r.Status == http.StatusOK {
				size[r.Host+r.URI] = r.Bytes
			}
		}
		bl.day2(w)
		w.web.Reset()
		b.StartTimer()
		if err := w.c.Once(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		day := w.web.Requests()
		reqs += len(day)
		for _, r := range day {
			if r.Status == http.StatusNotModified {
				notModified++
				saved += int(size[r.Host+r.URI])
			}
		}
		b.StartTimer()
	}
	const changed = 2 // alpha/p6 new, gamma/g2 modified
	b.ReportMetric(float64(reqs)/float64(b.N)/changed, "requests/changed-post")
	b.ReportMetric(float64(notModified)/float64(b.N), "304s/day")
	b.ReportMetric(float64(saved)/float64(b.N), "bytes-saved-by-304/day")
}
