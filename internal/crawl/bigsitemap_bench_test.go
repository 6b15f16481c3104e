package crawl_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/memtest"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// bigSitemapSites serves one BigSitemap of entries URLs of urlBytes on each
// of n hosts (bigN.example, at /sitemap.xml, named in robots.txt), every
// body held before its closing tag until all have reached theirs, so that
// the reads end together and their entries reach the store together, as
// issue 31 saw them. It returns the sitemaps, recorded for their sources.
func bigSitemapSites(tb testing.TB, w *world, n, entries, urlBytes int) ([]simweb.BigSitemap, []store.Sitemap) {
	tb.Helper()
	ctx := context.Background()
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	var gens []simweb.BigSitemap
	var sms []store.Sitemap
	for i := range n {
		host := fmt.Sprintf("big%d.example", i)
		g := simweb.BigSitemap{Host: host, Entries: entries, URLBytes: urlBytes, BeforeEnd: func() {
			arrived.Done()
			select {
			case <-all:
			case <-time.After(time.Minute): // the other read failed: end this one anyway
			}
		}}
		h := w.web.Host(host)
		h.Robots("User-agent: *\nAllow: /\nSitemap: " + h.URL("/sitemap.xml") + "\n")
		h.Handle("/sitemap.xml", g)
		src, _, err := w.db.AddSource(ctx, h.URL("/"), w.clock.Now())
		if err != nil {
			tb.Fatal(err)
		}
		sm, err := w.db.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: h.URL("/sitemap.xml"), Via: model.ViaRobots})
		if err != nil {
			tb.Fatal(err)
		}
		gens, sms = append(gens, g), append(sms, sm)
	}
	return gens, sms
}

// otherWrites keeps the store's one writer busy with small writes, one
// every millisecond, as the other sites of a crawl do, until stop is
// called; stop returns how many were committed and the longest any waited.
func otherWrites(tb testing.TB, w *world) (stop func() (n int, longest time.Duration)) {
	tb.Helper()
	ctx := context.Background()
	src, _, err := w.db.AddSource(ctx, "http://other.example/", w.clock.Now())
	if err != nil {
		tb.Fatal(err)
	}
	sm, err := w.db.AddSitemap(ctx, store.Sitemap{SourceID: src.ID, URL: "http://other.example/sitemap.xml", Via: model.ViaRobots})
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	var n atomic.Int64
	var longest atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			start := time.Now()
			if err := w.db.UpdateSitemap(ctx, sm); err != nil {
				tb.Error(err)
				return
			}
			n.Add(1)
			if d := int64(time.Since(start)); d > longest.Load() {
				longest.Store(d)
			}
		}
	})
	return func() (int, time.Duration) {
		close(done)
		wg.Wait()
		return int(n.Load()), time.Duration(longest.Load())
	}
}

// readTogether reads every sitemap at once, each on its own goroutine, as a
// run's frontier does for sites in flight.
func readTogether(tb testing.TB, w *world, sms []store.Sitemap) {
	tb.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(sms))
	for i, sm := range sms {
		wg.Go(func() { errs[i] = w.c.ReadSitemap(context.Background(), sm) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkTwoBigSitemaps is issue 31's item 7: two sitemaps of 38,000
// URLs of 1.3 KB (49.3 MiB each, generated as they are served) read at
// once by the crawler, their bodies ending together, while other writes
// go on beside them, into a fresh SQLite store. Each op is a first read of
// both, every URL new. peak-rss-MiB is the whole process's peak resident
// set during the op (memtest.PeakRSS), the simulated sites and SQLite's
// page cache included; peak-heap-MiB how far Go's heap rose (the entries
// held, the parsers, the sites); other-write-max-ms the longest a small
// write of another site waited.
// Run it alone: -run '^$' -bench TwoBigSitemaps -benchtime 1x.
func BenchmarkTwoBigSitemaps(b *testing.B) {
	const entries, urlBytes = 38_000, 1_300
	var peak, peakHeap uint64
	var longest time.Duration
	var others int
	for b.Loop() {
		b.StopTimer()
		w := sitemapWorld(b)
		gens, sms := bigSitemapSites(b, w, 2, entries, urlBytes)
		stop := otherWrites(b, w)
		watch := watchSlowOp("TwoBigSitemaps", 30*time.Second)
		b.StartTimer()
		var heap uint64
		p, ok := memtest.PeakRSS(func() {
			heap = memtest.PeakHeap(func(func()) { readTogether(b, w, sms) })
		})
		peakHeap = max(peakHeap, heap)
		b.StopTimer()
		watch()
		others, longest = stop()
		if !ok {
			b.Skip("no peak RSS here (not Linux?)")
		}
		peak = max(peak, p)
		for i, g := range gens {
			if got := postsOf(b, w, sms[i].SourceID); got[model.PostPending] != entries {
				b.Fatalf("%s: posts %v, want %d pending", g.Host, got, entries)
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-rss-MiB")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(longest)/float64(time.Millisecond), "other-write-max-ms")
	b.ReportMetric(float64(others), "other-writes")
}

// watchSlowOp prints, every period while an op has not ended, how long it
// has run and the process's resident set: a benchmark that freezes says so
// before a -timeout kills it. The function returned ends the watch.
func watchSlowOp(name string, period time.Duration) (end func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(period):
				rss, _ := memtest.RSS()
				fmt.Fprintf(os.Stderr, "%s: still running after %s, RSS %d MiB\n", name, time.Since(start).Round(time.Second), rss>>20)
			}
		}
	}()
	return func() { close(done) }
}
