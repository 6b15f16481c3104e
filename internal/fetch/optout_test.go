package fetch_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// An opt-out stored while the crawler runs stops the very next request to
// the site, robots.txt included, with no connection made; other sites are
// untouched.
func TestOptedOutStopsEveryRequest(t *testing.T) {
	var out atomic.Bool
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.OptedOut = func(_ context.Context, site string) (bool, error) { return out.Load() && site == "blog.example", nil }
	})
	h := r.web.Host("blog.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/a", "text/html", "<p>a</p>")
	h.Put("/b", "text/html", "<p>b</p>")
	other := r.web.Host("other.example")
	other.Put("/c", "text/html", "<p>c</p>")
	ctx := context.Background()
	if res := r.f.Fetch(ctx, fetch.Request{URL: "http://blog.example/a", Purpose: model.PurposePage}); res.Outcome != model.OutcomeFetched {
		t.Fatalf("before the opt-out: %s %v", res.Outcome, res.Err)
	}
	out.Store(true)
	before := len(r.web.Requests())
	for _, req := range []fetch.Request{
		{URL: "http://blog.example/b", Purpose: model.PurposePage},
		{URL: "http://blog.example/robots.txt", Purpose: model.PurposeRobots},
		{URL: "http://www.blog.example/feed", Purpose: model.PurposeFeed},
	} {
		res := r.f.Fetch(ctx, req)
		if !errors.Is(res.Err, fetch.ErrOptedOut) {
			t.Errorf("%s after the opt-out: %s %v, want ErrOptedOut", req.URL, res.Outcome, res.Err)
		}
	}
	if got := r.web.Requests()[before:]; len(got) != 0 {
		t.Errorf("%d requests reached the opted-out site: %v", len(got), got)
	}
	if res := r.f.Fetch(ctx, fetch.Request{URL: "http://other.example/c", Purpose: model.PurposePage}); res.Outcome != model.OutcomeFetched {
		t.Errorf("another site: %s %v", res.Outcome, res.Err)
	}
	opted := 0
	for _, rec := range r.records() {
		if rec.Outcome == model.OutcomeOptedOut {
			opted++
		}
	}
	if opted == 0 {
		t.Error("no record of the withheld requests")
	}
}

// The owner of an opted-out site can still prove control with the claim
// file: that one read, and its robots.txt, are sent.
func TestOptedOutStillReadsClaimFile(t *testing.T) {
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.OptedOut = func(context.Context, string) (bool, error) { return true, nil }
	})
	h := r.web.Host("blog.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/.well-known/corpusbot-claim.txt", "text/plain", "token")
	h.Put("/a", "text/html", "<p>a</p>")
	res := r.f.Fetch(context.Background(), fetch.Request{URL: "http://blog.example/.well-known/corpusbot-claim.txt", Purpose: model.PurposeClaim})
	if res.Outcome != model.OutcomeFetched || string(res.Body) != "token" {
		t.Fatalf("claim file: %s %q %v", res.Outcome, res.Body, res.Err)
	}
	if res := r.f.Fetch(context.Background(), fetch.Request{URL: "http://blog.example/a", Purpose: model.PurposePage}); !errors.Is(res.Err, fetch.ErrOptedOut) {
		t.Fatalf("a page of the opted-out site: %s %v", res.Outcome, res.Err)
	}
}
