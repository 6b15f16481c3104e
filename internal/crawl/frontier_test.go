package crawl_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// siteSpans is, per site, the time from its first request's start to its
// last request's end, as the server saw them: the site's own sequential
// time, gaps included.
func siteSpans(reqs []simweb.Request) map[string]time.Duration {
	out := map[string]time.Duration{}
	for site, rs := range simweb.BySite(reqs) {
		out[site] = rs[len(rs)-1].End.Sub(rs[0].Start)
	}
	return out
}

// TestFrontierTakesTheBusiestSiteTime: a round over many sites takes, on
// an event clock, about the time its busiest site needs for its own
// requests and gaps — not the sum of the sites' times, as phases over the
// whole population or a few workers would — and keeps every politeness
// rule on the way. With one site at a time, the same round takes the sum.
func TestFrontierTakesTheBusiestSiteTime(t *testing.T) {
	for _, tc := range []struct {
		name        string
		concurrency int
	}{{"frontier", 0}, {"one at a time", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			w, clock := newEventWorld(t, func(s *config.Settings) { s.Concurrency = max(tc.concurrency, s.Concurrency) })
			if tc.concurrency > 0 { // 0: CONCURRENCY, as New took it
				w.c.Concurrency = tc.concurrency
			}
			blogFarm(w.web, 12, 3, 3) // 12 blogs: feed, two catalogue pages, 9 posts each
			// One slow site: a Crawl-delay of 10 s on every request.
			slow := w.web.Host(clusterHost(0))
			slow.Robots("User-agent: *\nCrawl-delay: 10\n")
			ctx := context.Background()
			for s := range 12 {
				if _, _, err := w.db.AddSource(ctx, fmt.Sprintf("http://%s/", clusterHost(s)), clock.Now()); err != nil {
					t.Fatal(err)
				}
			}
			began := clock.Now()
			if err := w.c.Once(ctx); err != nil {
				t.Fatal(err)
			}
			took := clock.Now().Sub(began)
			w.clean()
			spans := siteSpans(w.web.Requests())
			var busiest, sum time.Duration
			for _, d := range spans {
				busiest = max(busiest, d)
				sum += d
			}
			if len(spans) != 12 || spans[clusterHost(0)] != busiest {
				t.Fatalf("spans %v: want 12 sites, the slow one the busiest", spans)
			}
			t.Logf("round %v; busiest site %v; all sites' own times %v; clock stalls %d", took, busiest, sum, clock.Stalls())
			if tc.concurrency == 1 {
				if took < sum {
					t.Errorf("one at a time took %v, less than the sum of the sites' times %v", took, sum)
				}
				return
			}
			if took > busiest+busiest/20 {
				t.Errorf("the round took %v, more than 1.05× the busiest site's %v", took, busiest)
			}
		})
	}
}

// slowCheckouts checks the frontier's sites out of db (crawl.SetCheckouts),
// each checkout taking a while on the clock as one waiting for its commit
// does, and counts them.
type slowCheckouts struct {
	db           *store.DB
	clock        *simweb.EventClock
	mu           sync.Mutex
	calls, sites int
}

func (s *slowCheckouts) CheckOutSites(ctx context.Context, round string, sites []string) ([]store.Checkout, error) {
	if err := s.clock.Sleep(ctx, 200*time.Millisecond); err != nil {
		return nil, err
	}
	got, err := s.db.CheckOutSites(ctx, round, sites)
	s.mu.Lock()
	s.calls++
	s.sites += len(got)
	s.mu.Unlock()
	return got, err
}

// TestFrontierRefillsFreedSlotsTogether: sites that finish while the
// frontier waits for a checkout are refilled together, by the next
// checkout, not one checkout (and one commit) each — which capped a crawl
// of short visits at one site started per commit.
func TestFrontierRefillsFreedSlotsTogether(t *testing.T) {
	const sites, concurrency = 48, 8
	w, clock := newEventWorld(t, func(s *config.Settings) { s.Concurrency = concurrency })
	w.c.Concurrency = concurrency
	checkouts := &slowCheckouts{db: w.c.Store, clock: clock}
	crawl.SetCheckouts(w.c, checkouts)
	blogFarm(w.web, sites, 1, 1) // the same short visit to every site
	ctx := context.Background()
	for s := range sites {
		if _, _, err := w.db.AddSource(ctx, fmt.Sprintf("http://%s/", clusterHost(s)), clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	w.clean()
	checkouts.mu.Lock()
	defer checkouts.mu.Unlock()
	t.Logf("%d sites checked out in %d checkouts", checkouts.sites, checkouts.calls)
	if checkouts.sites != sites {
		t.Fatalf("%d sites checked out, want %d", checkouts.sites, sites)
	}
	if checkouts.calls > sites/2 {
		t.Errorf("%d checkouts for %d sites at %d at once: freed slots refilled one at a time", checkouts.calls, sites, concurrency)
	}
}

// TestFrontierClosesFinishedSitesConnections: a site's connection is closed
// when its visit ends, not kept open on both ends for the transport's idle
// timeout (10 s of real time, far longer than this test waits).
func TestFrontierClosesFinishedSitesConnections(t *testing.T) {
	w, clock := newEventWorld(t, nil)
	blogFarm(w.web, 12, 3, 3)
	ctx := context.Background()
	for s := range 12 {
		if _, _, err := w.db.AddSource(ctx, fmt.Sprintf("http://%s/", clusterHost(s)), clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	w.clean()
	if dials := w.web.Dials(""); dials < 12 {
		t.Fatalf("%d connections for 12 sites", dials)
	}
	deadline := time.Now().Add(2 * time.Second)
	for w.web.OpenConns() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := w.web.OpenConns(); n > 0 {
		t.Errorf("the sites still hold %d connections after the round", n)
	}
}
