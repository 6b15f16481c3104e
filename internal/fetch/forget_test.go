package fetch_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// leaseRig is a rig whose lease the test can count.
func leaseRig(t *testing.T) (*rig, *fetch.LocalLease) {
	var l *fetch.LocalLease
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		l = fetch.NewLocalLease(o.Clock)
		o.Lease = l
	})
	return r, l
}

// A site whose robots.txt was just read is forgotten by the lease before
// its next request, which asks a longer floor than the read did (the
// Crawl-delay the read found, or a catalogue page's delay): the request
// still waits out that floor from the end of the read, as seen by the
// server.
func TestForgottenSiteKeepsItsGap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		robots  string
		purpose model.Purpose
		gap     time.Duration
	}{
		{"crawl-delay", "User-agent: *\nCrawl-delay: 7\n", model.PurposePage, 7 * time.Second},
		{"catalogue", "User-agent: *\nAllow: /\n", model.PurposeCatalogue, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, l := leaseRig(t)
			ctx := context.Background()
			var others []*simweb.Host
			for i := range 2 {
				h := r.web.Host(fmt.Sprintf("other%d.example", i))
				h.Robots("User-agent: *\nAllow: /\n")
				others = append(others, h)
			}
			h := r.web.Host("slow.example")
			h.Robots(tc.robots)
			h.Put("/p", "text/html", simweb.HTMLPage)
			h.Put("/feed?paged=2", "application/rss+xml", rss)
			u := h.URL("/p")
			if tc.purpose == model.PurposeCatalogue {
				u = h.URL("/feed?paged=2")
			}
			// The lease sweeps on an Acquire at least 10s after the last
			// sweep: the first read sweeps, the site's read comes 8.5s
			// later, and the third read, 1.5s after it (its next-allowed
			// time passed, its longer floor not yet), sweeps it away.
			if _, err := r.f.Robots(ctx, others[0].URL("/")); err != nil {
				t.Fatal(err)
			}
			r.clock.Advance(8500 * time.Millisecond)
			if _, err := r.f.Robots(ctx, h.URL("/")); err != nil {
				t.Fatal(err)
			}
			r.clock.Advance(1500 * time.Millisecond)
			if _, err := r.f.Robots(ctx, others[1].URL("/")); err != nil {
				t.Fatal(err)
			}
			if n := l.Sites(); n != 1 {
				t.Fatalf("%d sites held, want slow.example forgotten", n)
			}
			want(t, r.get(u, tc.purpose), model.OutcomeFetched)
			reqs := r.web.RequestsTo(h.Name())
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want robots.txt and the page", len(reqs))
			}
			if g := reqs[1].Start.Sub(reqs[0].End); g < tc.gap {
				t.Errorf("page asked %v after robots.txt, want %v", g, tc.gap)
			}
			r.clean(r.s.MinGap)
		})
	}
}

// Back-off: errors close together keep doubling the gap; a site that has
// rested more than an hour past its widened gap starts afresh, and its
// entry is gone from memory by then.
func TestBackoffForgottenAfterRest(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("flaky.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/p", simweb.Status(http.StatusInternalServerError))
	ok := r.web.Host("fine.example")
	ok.Robots("User-agent: *\nAllow: /\n")
	ok.Put("/p", "text/html", simweb.HTMLPage)
	gapBefore := func(i int) time.Duration {
		reqs := r.web.RequestsTo(h.Name())
		return reqs[i].Start.Sub(reqs[i-1].End)
	}
	for range 3 { // gaps of 2s then 4s; the next is 8s
		want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeStatus)
	}
	if n := r.f.BackoffSites(); n != 1 {
		t.Fatalf("%d sites with a back-off, want 1", n)
	}
	// Half an hour past the widened gap: still close enough to double.
	r.clock.Advance(8*time.Second + 30*time.Minute)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeStatus)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeStatus)
	if g := gapBefore(5); g != 16*time.Second {
		t.Errorf("gap after four errors %v, want 16s", g)
	}
	// The fifth error widened the gap to 32s. An hour and more past it:
	// another site's request sweeps the entry away, and the next error
	// opens the first step again.
	r.clock.Advance(32*time.Second + time.Hour)
	want(t, r.get(ok.URL("/p"), model.PurposePage), model.OutcomeFetched)
	if n := r.f.BackoffSites(); n != 0 {
		t.Errorf("%d sites with a back-off after the rest, want 0", n)
	}
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeStatus)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeStatus)
	if g := gapBefore(7); g != 2*time.Second {
		t.Errorf("gap after an error following the rest %v, want the first step, 2s", g)
	}
	r.clean(r.s.MinGap)
}

// deadResolver answers "no such host" for names starting with "dead",
// and passes the rest to the simulated web's resolver.
type deadResolver struct{ live fetch.Resolver }

func (d deadResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if strings.HasPrefix(host, "dead") {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return d.live.LookupNetIP(ctx, network, host)
}

// Go's transport keeps a record of every host whose last connection never
// went idle (here: dead hosts, whose dial fails); the fetcher replaces its
// transport every so many dials so that those records do not pile up, and
// goes on fetching across the replacement.
func TestTransportReplacedAfterManyDials(t *testing.T) {
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.Resolver = deadResolver{o.Resolver}
	})
	h := r.web.Host("alive.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/p", "text/html", simweb.HTMLPage)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	const dials = 16384 // fetcher.go's transportDials
	for i := range dials + 10 {
		if res := r.get(fmt.Sprintf("http://dead%05d.example/p", i), model.PurposePage); res.Outcome == model.OutcomeFetched {
			t.Fatalf("a dead host answered: %+v", res)
		}
	}
	if n := r.f.TransportsBuilt(); n != 2 {
		t.Errorf("%d transports after %d failed dials, want 2", n, dials+10)
	}
	r.clock.Advance(time.Minute)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	r.clean(r.s.MinGap)
}
