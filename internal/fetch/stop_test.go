package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// A request under way when its caller stops is read to its end: the
// caller gets the site's answer whole, with its validators, to record;
// and once stopped, nothing more is sent.
func TestStopLetsRequestUnderWayFinish(t *testing.T) {
	r := newRig(t, true, func(s *config.Settings, _ *fetch.Options) { s.MinGap = 10 * time.Millisecond })
	h := r.web.Host("stop.example")
	h.Robots("User-agent: *\nAllow: /\n")
	body := "<!doctype html><html><head><title>Slow</title></head><body>" + strings.Repeat("<p>words</p>", 2000) + "</body></html>"
	began, release := make(chan struct{}), make(chan struct{})
	h.Handle("/slow", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("ETag", `"slow-1"`)
		w.WriteHeader(http.StatusOK)
		half := len(body) / 2
		fmt.Fprint(w, body[:half])
		w.(http.Flusher).Flush()
		close(began)
		<-release
		fmt.Fprint(w, body[half:])
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan fetch.Result, 1)
	go func() { done <- r.f.Fetch(ctx, fetch.Request{URL: h.URL("/slow"), Purpose: model.PurposePage}) }()
	<-began
	cancel() // the stop, with half the body on its way
	close(release)
	res := <-done
	want(t, res, model.OutcomeFetched)
	if string(res.Body) != body || res.ETag != `"slow-1"` {
		t.Errorf("the answer under way at the stop came back with %d of %d bytes, ETag %q", len(res.Body), len(body), res.ETag)
	}

	// Stopped: nothing more is sent, to this site or any other, robots.txt
	// included, whether the site's lease is free or not.
	other := r.web.Host("other.example")
	other.Robots("User-agent: *\nAllow: /\n")
	other.Put("/p", "text/html", "<p>x</p>")
	before := len(r.web.Requests())
	for range 20 {
		for _, u := range []string{h.URL("/slow"), other.URL("/p")} {
			res := r.f.Fetch(ctx, fetch.Request{URL: u, Purpose: model.PurposePage})
			if !errors.Is(res.Err, context.Canceled) {
				t.Fatalf("a fetch after the stop: %s %v, want context.Canceled", res.Outcome, res.Err)
			}
		}
	}
	if n := len(r.web.Requests()) - before; n != 0 {
		t.Errorf("%d requests sent after the stop: %v", n, r.uris("other.example"))
	}
	r.clean(r.s.MinGap)
}

// What an answer had teaches the fetcher's own memories (robots.txt and
// its validators, the refusal list) is stored under a context the stop
// has not ended, so that a store behind them keeps it.
func TestStopKeepsRobotsAndRefusals(t *testing.T) {
	robotsCache, refusals := newRobotsStore(), newRefusalStore()
	var stop context.CancelFunc
	r := newRig(t, true, func(s *config.Settings, o *fetch.Options) {
		s.MinGap = 10 * time.Millisecond
		o.Robots, o.Refusals = robotsCache, refusals
		observe := o.Observe
		o.Observe = func(rec model.RequestRecord) {
			observe(rec)
			if rec.Purpose == model.PurposeRobots {
				stop() // robots.txt has come in as the caller stops
			}
		}
	})
	h := r.web.Host("learn.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/forbidden", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		stop() // the caller stops as the site answers
		w.WriteHeader(http.StatusForbidden)
	}))

	ctx, cancel := context.WithCancel(context.Background())
	stop = cancel
	r.f.Robots(ctx, h.URL("/"))
	ctx, cancel = context.WithCancel(context.Background())
	stop = cancel
	res := r.f.Fetch(ctx, fetch.Request{URL: h.URL("/forbidden"), Purpose: model.PurposePage})
	want(t, res, model.OutcomeStatus)
	if len(robotsCache.dead) > 0 || len(refusals.dead) > 0 {
		t.Errorf("written under an ended context: robots.txt of %v, refusal standing of %v", robotsCache.dead, refusals.dead)
	}
	if e, ok := robotsCache.stored("http://learn.example:80"); !ok || e.ETag == "" {
		t.Errorf("robots.txt read as the caller stopped: cached %v, ETag %q", ok, e.ETag)
	}
	if st := refusals.stored("learn.example"); st.Consecutive403 != 1 {
		t.Errorf("refusal standing after a 403 as the caller stopped: %+v", st)
	}
}

// Outlive's context lives on after its parent ends, for the grace and no
// longer, and its cause says why it ended.
func TestOutlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type key struct{}
		parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
		ctx, release := fetch.Outlive(parent, 5*time.Second)
		defer release()
		if ctx.Value(key{}) != "v" {
			t.Error("the parent's values are lost")
		}
		time.Sleep(time.Hour) // a parent alive: no deadline
		if ctx.Err() != nil {
			t.Fatalf("ended while its parent lives: %v", ctx.Err())
		}
		cancel()
		time.Sleep(5*time.Second - time.Millisecond)
		if ctx.Err() != nil {
			t.Fatalf("ended before the grace: %v", context.Cause(ctx))
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if ctx.Err() == nil || !errors.Is(context.Cause(ctx), context.Canceled) {
			t.Fatalf("after the grace: %v (cause %v), want ended, its cause the parent's", ctx.Err(), context.Cause(ctx))
		}

		// Released, it ends at once, and no timer is left behind.
		parent, cancel = context.WithCancel(context.Background())
		ctx, release = fetch.Outlive(parent, time.Minute)
		release()
		if ctx.Err() == nil {
			t.Error("not ended by its release")
		}
		cancel()
	})
}
