package fetch_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// loadWeb sets up n sites of one host each, with a robots.txt and a feed.
func loadWeb(r *rig, n int) []string {
	hosts := make([]string, n)
	for i := range hosts {
		h := r.web.Host(fmt.Sprintf("blog%04d.example", i))
		h.Robots("User-agent: *\nDisallow: /private\n")
		h.Put("/feed", "application/rss+xml", rss)
		hosts[i] = h.Name()
	}
	return hosts
}

// 2,000 sites, 20 requests each, all queued at once on 256 workers: every
// politeness rule holds, seen from the server.
func TestLoadTwoThousandSites(t *testing.T) {
	sites, per, workers := 2000, 20, 256
	if raceEnabled {
		per, workers = 4, 64 // every site still sees concurrent, queued requests
	}
	if testing.Short() {
		sites = 200
	}
	const gap = 2 * time.Millisecond
	r := newRig(t, true, func(s *config.Settings, o *fetch.Options) {
		s.MinGap = gap
		o.Timeouts.Total = 30 * time.Second // a starved CI machine is not a slow site
	})
	hosts := loadWeb(r, sites)
	jobs := make(chan string)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for u := range jobs {
				if res := r.f.Fetch(ctx, fetch.Request{URL: u, Purpose: model.PurposeFeed}); res.Outcome != model.OutcomeFetched {
					if failed.Add(1) < 5 {
						t.Errorf("%s: %s %v", u, res.Outcome, res.Err)
					}
				}
			}
		})
	}
	began := time.Now()
	for i := range per {
		for _, h := range hosts {
			jobs <- "http://" + h + "/feed?n=" + fmt.Sprint(i)
		}
	}
	close(jobs)
	wg.Wait()
	el := time.Since(began)
	reqs := r.web.Requests()
	if len(reqs) != sites*(per+1) {
		t.Errorf("%d requests, want %d", len(reqs), sites*(per+1))
	}
	r.clean(gap)
	t.Logf("%d sites x %d: %d requests in %v (%.0f req/s), %d failed", sites, per, len(reqs), el, float64(len(reqs))/el.Seconds(), failed.Load())
}

// BenchmarkFetch: requests/s through every rule with a tiny MIN_GAP, spread
// over 64 sites so the gaps are not what limits it.
func BenchmarkFetch(b *testing.B) {
	r := newRig(b, true, func(s *config.Settings, _ *fetch.Options) { s.MinGap = time.Nanosecond })
	hosts := loadWeb(r, 64)
	for _, h := range hosts { // robots.txt read and cached before the clock starts
		r.get("http://"+h+"/feed", model.PurposeFeed)
	}
	var i atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := i.Add(1)
			u := "http://" + hosts[n%int64(len(hosts))] + "/feed"
			if res := r.f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: model.PurposeFeed}); res.Outcome != model.OutcomeFetched {
				b.Fatal(res.Err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkRawClient is the same traffic on a bare http.Client over the same
// simulated network: the difference to BenchmarkFetch is the fetcher's own
// overhead per request.
func BenchmarkRawClient(b *testing.B) {
	r := newRig(b, true, nil)
	hosts := loadWeb(r, 64)
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (netConn, error) {
		return r.web.Dial(ctx, network, simweb.PublicAddr.String()+":80")
	}, MaxIdleConnsPerHost: 2, DisableCompression: true}}
	var i atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := i.Add(1)
			resp, err := c.Get("http://" + hosts[n%int64(len(hosts))] + "/feed")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = readAll(resp.Body)
			resp.Body.Close()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkMemoryPerSite: the fetcher's state per site held (lease slot,
// robots.txt entry with its parsed file, refusal and back-off state).
func BenchmarkMemoryPerSite(b *testing.B) {
	for range b.N {
		const n = 1000
		r := newRig(b, true, func(s *config.Settings, _ *fetch.Options) { s.MinGap = time.Nanosecond })
		hosts := loadWeb(r, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for _, h := range hosts {
			r.get("http://"+h+"/feed", model.PurposeFeed)
		}
		r.f.CloseIdleConnections()
		r.web.Reset()
		r.mu.Lock()
		r.recs = nil
		r.mu.Unlock()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/site")
		runtime.KeepAlive(r.f)
	}
}
