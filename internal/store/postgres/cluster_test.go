package postgres_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store/postgres"
)

// Three workers, each with its own connection pool, lease, robots cache and
// fetcher, crawl the same simulated web at once: the server sees one
// request in flight per site, the minimum gap between requests, and one
// robots.txt read per host for the whole cluster.
func TestClusterFetchersShareOnePoliteness(t *testing.T) {
	dsn := testDSN(t)
	open(t, dsn)
	web := simweb.New()
	t.Cleanup(web.Close)
	const sites, pages, workers, gap = 4, 5, 3, 30 * time.Millisecond
	var urls []string
	for s := range sites {
		h := web.Host(fmt.Sprintf("blog%d.example", s))
		h.Robots("User-agent: *\nAllow: /\n")
		for p := range pages {
			h.Put(fmt.Sprintf("/p/%d", p), "text/html", simweb.HTMLPage)
			urls = append(urls, h.URL(fmt.Sprintf("/p/%d", p)))
		}
	}
	s := config.Defaults()
	s.MinGap = gap
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	var wg sync.WaitGroup
	for w := range workers {
		db := open(t, dsn)
		o := fetch.Options{
			Settings: s, Clock: fetch.RealClock{}, Resolver: web.Resolver(), Dial: web.Dial, Proxy: fetch.NoProxy,
			TLS: web.ClientTLS(), Logger: discard, Timeouts: fetch.Timeouts{Total: 5 * time.Second},
			Lease:  postgres.NewLease(db.SQL(), fetch.RealClock{}, postgres.LeaseOptions{Poll: 2 * time.Millisecond, Log: discard}),
			Robots: db, RobotsHold: fetch.RobotsHold{Holds: db},
		}
		f, err := fetch.New(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.CloseIdleConnections)
		for g := range 4 {
			wg.Go(func() {
				for i := range urls {
					u := urls[(i+g*7+w*3)%len(urls)]
					if r := f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: model.PurposePage}); r.Outcome != model.OutcomeFetched {
						t.Errorf("worker %d %s: %s %v", w, u, r.Outcome, r.Err)
					}
				}
			})
		}
	}
	wg.Wait()
	for _, v := range web.Violations(s.UserAgent, s.ProductToken(), func(string) time.Duration { return gap }) {
		t.Error(v)
	}
	for s := range sites {
		host := fmt.Sprintf("blog%d.example", s)
		n := 0
		for _, r := range web.RequestsTo(host) {
			if r.URI == "/robots.txt" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: robots.txt read %d times by the cluster", host, n)
		}
	}
	if got, want := len(web.Requests()), sites+sites*pages*workers*4; got != want {
		t.Errorf("%d requests, want %d", got, want)
	}
}
