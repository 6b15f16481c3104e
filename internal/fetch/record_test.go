package fetch_test

import (
	"net/http"
	"sync"
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

func TestEveryRequestObserved(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("www.seen.example")
	h.Robots("User-agent: *\nDisallow: /no\n")
	h.Put("/feed", "application/rss+xml", rss)
	want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeFetched)
	want(t, r.get(h.URL("/no"), model.PurposePage), model.OutcomeDisallowed)
	recs := r.records()
	if len(recs) != 3 {
		t.Fatalf("%d records: %+v", len(recs), recs)
	}
	rob, feed, no := recs[0], recs[1], recs[2]
	if rob.Purpose != model.PurposeRobots || rob.Status != 200 || rob.Site != "seen.example" || rob.Outcome != model.OutcomeFetched {
		t.Errorf("robots record %+v", rob)
	}
	if feed.Purpose != model.PurposeFeed || feed.URL != h.URL("/feed") || feed.Bytes != int64(len(rss)) || feed.Conditional || feed.Start.IsZero() {
		t.Errorf("feed record %+v", feed)
	}
	if no.Outcome != model.OutcomeDisallowed || no.Status != 0 || no.Purpose != model.PurposePage {
		t.Errorf("disallowed record %+v", no)
	}
}

// Requests queued on a listed site when its recheck falls due: one is sent.
func TestRefusalRecheckSendsOne(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("closed.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/feed", simweb.Status(http.StatusForbidden))
	for range 3 {
		r.get(h.URL("/feed"), model.PurposeFeed)
	}
	r.clock.Advance(r.s.RefusalRecheck)
	feeds := func() (n int) {
		for _, q := range r.web.RequestsTo(h.Name()) {
			if q.URI == "/feed" {
				n++
			}
		}
		return n
	}
	before := feeds()
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { r.get(h.URL("/feed"), model.PurposeFeed) })
	}
	wg.Wait()
	if n := feeds() - before; n != 1 {
		t.Errorf("%d requests at the recheck, want 1", n)
	}
}
