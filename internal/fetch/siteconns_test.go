package fetch_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// waitOpen waits (in real time: the servers see a close when their
// goroutine gets to it) until the simulated servers hold n connections.
func waitOpen(t *testing.T, web *simweb.Web, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if web.OpenConns() == n {
			return
		}
	}
	t.Fatalf("the servers hold %d connections, want %d", web.OpenConns(), n)
}

// VisitDone closes the connections kept for one site, both its http and its
// https one, and no other site's; the site's next request dials anew.
func TestVisitDoneClosesTheSitesConnections(t *testing.T) {
	r := newRig(t, false, nil)
	a, b := r.web.Host("a.example"), r.web.Host("b.example")
	for _, h := range []*simweb.Host{a, b} {
		h.Robots("User-agent: *\nAllow: /\n")
		h.Put("/p", "text/html", "<p>hello</p>")
	}
	want(t, r.get(a.URL("/p"), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(strings.Replace(a.URL("/p"), "http:", "https:", 1), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(b.URL("/p"), model.PurposePage), model.OutcomeFetched)
	waitOpen(t, r.web, 3)
	if conns, sites := r.f.SiteConnsOpen(); conns != 3 || sites != 2 {
		t.Fatalf("fetcher records %d connections of %d sites, want 3 of 2", conns, sites)
	}

	r.f.VisitDone("a.example")
	waitOpen(t, r.web, 1)
	if conns, sites := r.f.SiteConnsOpen(); conns != 1 || sites != 1 {
		t.Errorf("after a's visit: %d connections of %d sites recorded, want 1 of 1", conns, sites)
	}
	r.f.VisitDone("never-asked.example") // nothing to close

	dials := r.web.Dials("")
	want(t, r.get(a.URL("/p"), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(b.URL("/p"), model.PurposePage), model.OutcomeFetched)
	if got := r.web.Dials("") - dials; got != 1 {
		t.Errorf("%d dials for a's and b's next requests, want 1 (a's)", got)
	}
	r.f.VisitDone("a.example")
	r.f.VisitDone("b.example")
	waitOpen(t, r.web, 0)
	if conns, sites := r.f.SiteConnsOpen(); conns != 0 || sites != 0 {
		t.Errorf("after every visit: %d connections of %d sites recorded, want none", conns, sites)
	}
	r.clean(r.s.MinGap)
}

// A connection whose request is under way is not closed under it: VisitDone
// called by some other part of the process mid-request changes nothing.
func TestVisitDoneLeavesARequestUnderWay(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("slow.example")
	h.Robots("User-agent: *\nAllow: /\n")
	arrived, finish := make(chan struct{}), make(chan struct{})
	h.Handle("/slow", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(arrived)
		<-finish
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>at last</p>"))
	}))
	done := make(chan fetch.Result)
	go func() {
		done <- r.f.Fetch(context.Background(), fetch.Request{URL: h.URL("/slow"), Purpose: model.PurposePage})
	}()
	<-arrived
	r.f.VisitDone("slow.example")
	close(finish)
	want(t, <-done, model.OutcomeFetched)
	if r.web.OpenConns() != 1 {
		t.Errorf("the servers hold %d connections, want the 1 still kept", r.web.OpenConns())
	}
	if n := r.web.Dials(""); n != 1 {
		t.Errorf("%d dials, want 1", n)
	}
	r.f.VisitDone("slow.example")
	waitOpen(t, r.web, 0)
}
