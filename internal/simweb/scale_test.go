package simweb_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
)

// The additions for populations too large to configure host by host: a
// fallback that serves any unknown host, response latency, and a
// recorder that only counts.

func TestFallbackServesUnknownHosts(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	w.Host("known.example").Put("/", "text/html", "<p>configured</p>")
	r := w.Resolver()
	if _, err := r.LookupNetIP(context.Background(), "ip", "any.example"); err == nil {
		t.Fatal("an unknown name resolved before any fallback")
	}
	var asked sync.Map
	w.Fallback(func(host string) http.Handler {
		asked.Store(host, true)
		return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/robots.txt" {
				fmt.Fprint(rw, "User-agent: *\nDisallow: /private/\n")
				return
			}
			fmt.Fprintf(rw, "generated for %s%s", host, req.URL.Path)
		})
	})
	if a, err := r.LookupNetIP(context.Background(), "ip", "any.example"); err != nil || a[0] != simweb.PublicAddr {
		t.Fatalf("with a fallback, any.example: %v %v", a, err)
	}
	c := client(w)
	if resp := get(t, c, "http://known.example/"); resp.StatusCode != 200 {
		t.Errorf("configured host: %d", resp.StatusCode)
	}
	if _, ok := asked.Load("known.example"); ok {
		t.Error("the fallback was asked for a configured host")
	}
	get(t, c, "http://gen.example/robots.txt", "User-Agent", ua)
	get(t, c, "http://gen.example/private/x", "User-Agent", ua)
	v := strings.Join(w.Violations(ua, "CorpusBot", nil), "\n")
	if !strings.Contains(v, "gen.example: disallowed /private/x fetched") {
		t.Errorf("the generated robots.txt was not checked:\n%s", v)
	}
	w.Fallback(nil)
	if resp := get(t, c, "http://gen.example/"); resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("fallback off: %d", resp.StatusCode)
	}
}

func TestLatencyIsInsideTheRequest(t *testing.T) {
	const lo, hi = 30 * time.Millisecond, 60 * time.Millisecond
	w := simweb.New(simweb.WithLatency(simweb.Latency{Min: lo, Max: hi, Seed: 7}))
	defer w.Close()
	h := w.Host("slow.example")
	for i := range 5 {
		h.Put(fmt.Sprintf("/p%d", i), "text/html", "<p>x</p>")
	}
	c := client(w)
	for i := range 5 {
		get(t, c, h.URL(fmt.Sprintf("/p%d", i)))
	}
	got := map[time.Duration]bool{}
	for _, r := range w.Requests() {
		d := r.End.Sub(r.Start)
		if d < lo || d > hi+200*time.Millisecond {
			t.Errorf("%s took %v, want %v to %v", r.URI, d, lo, hi)
		}
		got[d.Round(5*time.Millisecond)] = true
	}
	if len(got) < 2 {
		t.Errorf("every request as slow as the others: %v", got)
	}
}

// On an event clock, a server asleep for its latency lets simulated time
// move on while the client waits for the answer: the request takes its
// latency in simulated time and next to nothing in real time.
func TestLatencyOnAnEventClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := simweb.NewEventClock(t0)
	defer clock.Close()
	w := simweb.New(simweb.WithClock(clock.Now),
		simweb.WithLatency(simweb.Latency{Min: 150 * time.Millisecond, Max: 150 * time.Millisecond, Sleep: clock.Sleep}))
	defer w.Close()
	w.Host("a.example").Put("/", "text/html", "<p>x</p>")
	done := clock.Busy() // the client, known to the clock as the frontier's sites are
	began := time.Now()
	get(t, client(w), "http://a.example/")
	done()
	if d := clock.Now().Sub(t0); d != 150*time.Millisecond {
		t.Errorf("simulated time moved %v, want the latency, 150ms", d)
	}
	if d := time.Since(began); d > 100*time.Millisecond {
		t.Errorf("the request took %v of real time", d)
	}
	rs := w.Requests()
	if len(rs) != 1 || rs[0].End.Sub(rs[0].Start) != 150*time.Millisecond {
		t.Errorf("recorded %v", rs)
	}
}

func TestCountOnly(t *testing.T) {
	w := simweb.New(simweb.CountOnly())
	defer w.Close()
	h := w.Host("a.blog.example")
	h.Handle("/slow", simweb.Slow(100*time.Millisecond, nil, simweb.NewResource("text/html", "<html>")))
	w.Host("b.blog.example").Put("/p", "text/html", "<html>")
	c := client(w)
	var wg sync.WaitGroup
	wg.Go(func() { get(t, c, h.URL("/slow")) })
	time.Sleep(20 * time.Millisecond)
	get(t, c, "http://b.blog.example/p") // same site, while /slow is in flight
	wg.Wait()
	get(t, c, "http://b.blog.example/p")
	if got := w.Tally(); got != (simweb.Tally{Requests: 3, Overlaps: 1}) {
		t.Errorf("tally %+v, want 3 requests, 1 overlap", got)
	}
	if n := len(w.Requests()); n != 0 {
		t.Errorf("%d requests kept", n)
	}
}
