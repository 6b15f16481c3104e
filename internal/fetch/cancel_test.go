package fetch_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// A caller that gives up while queued on a site's lease leaves at once, sends
// nothing, and leaves the lease usable and the site's back-off untouched.
func TestCancelWhileQueued(t *testing.T) {
	r := newRig(t, true, func(s *config.Settings, _ *fetch.Options) { s.MinGap = 2 * time.Second })
	h := r.web.Host("queue.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/p", "text/html", simweb.HTMLPage)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	began := time.Now()
	res := r.f.Fetch(ctx, fetch.Request{URL: h.URL("/p"), Purpose: model.PurposePage})
	want(t, res, model.OutcomeError)
	if el := time.Since(began); el > time.Second { // well short of the 2s it would wait for the lease
		t.Errorf("cancelled fetch returned after %v", el)
	}
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	if n := len(r.web.RequestsTo(h.Name())); n != 3 {
		t.Errorf("%d requests, want robots.txt and two pages", n)
	}
	r.clean(r.s.MinGap)
}
