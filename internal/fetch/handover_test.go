package fetch_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// A site handed from one fetcher to another (two processes, or a restart:
// each has a lease of its own) keeps its gaps when the second is given the
// first's Handover: MIN_GAP after the last request, and a Retry-After.
func TestHandoverKeepsGaps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		page   func(*simweb.Host)
		resume bool
		least  time.Duration // the least gap the second fetcher must leave
	}{
		{"min gap", func(h *simweb.Host) { h.Put("/p", "text/html", "<p>hi</p>") }, true, time.Second},
		{"retry-after", func(h *simweb.Host) { h.Handle("/p", simweb.Unavailable("30")) }, true, 30 * time.Second},
		// Without the handover the second fetcher asks at once: what the
		// test would see of two processes that hand nothing on.
		{"no handover", func(h *simweb.Host) { h.Put("/p", "text/html", "<p>hi</p>") }, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newRig(t, false, nil)
			h := a.web.Host("blog.example")
			h.Robots("User-agent: *\nAllow: /\n")
			tc.page(h)
			a.get(h.URL("/p"), model.PurposePage)
			lastEnd, next := a.f.Handover("blog.example")
			if lastEnd.IsZero() {
				t.Fatal("Handover gave no last end after a request")
			}
			b, err := fetch.New(fetch.Options{Settings: a.s, Clock: a.clock, Resolver: a.web.Resolver(), Dial: a.web.Dial,
				Proxy: fetch.NoProxy, TLS: a.web.ClientTLS(), Logger: discard, Timeouts: fetch.Timeouts{Total: 5 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.resume {
				b.Resume("blog.example", lastEnd, model.SiteWait{Site: "blog.example", Next: next})
			}
			before := len(a.web.Requests())
			b.Fetch(context.Background(), fetch.Request{URL: h.URL("/p"), Purpose: model.PurposePage})
			reqs := a.web.Requests()
			if len(reqs) <= before {
				t.Fatal("the second fetcher sent nothing")
			}
			gap := reqs[before].Start.Sub(reqs[before-1].End)
			if tc.resume && gap < tc.least {
				t.Errorf("the second fetcher asked %v after the first's last request, want at least %v", gap, tc.least)
			}
			if !tc.resume && gap >= time.Second {
				t.Errorf("without a handover the second fetcher waited %v: the test cannot tell the handover's effect", gap)
			}
		})
	}
}

// A local lease tells a site's timing as it keeps it, and what a forgotten
// site left behind.
func TestLocalLeaseTimes(t *testing.T) {
	clock := simweb.NewClock(start)
	l := fetch.NewLocalLease(clock)
	if end, next := l.Times("never.example"); !end.IsZero() || !next.IsZero() {
		t.Fatalf("a site never asked has times %v, %v", end, next)
	}
	s, err := l.Acquire(context.Background(), "blog.example", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	end, next := start.Add(time.Second), start.Add(5*time.Second)
	s.Release(end, next)
	if e, n := l.Times("blog.example"); !e.Equal(end) || !n.Equal(next) {
		t.Fatalf("Times = %v, %v; want %v, %v", e, n, end, next)
	}
}
