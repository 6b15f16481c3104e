package fetch_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// health is a StoreHealth a test turns bad and good again.
type health struct{ err atomic.Pointer[error] }

func (h *health) Health() error {
	if e := h.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (h *health) set(err error) {
	if err == nil {
		h.err.Store(nil)
		return
	}
	h.err.Store(&err)
}

// While the store says it cannot record, nothing is sent — no page, no
// robots.txt, no POST — and nothing is recorded: the caller gets
// ErrStoreDown carrying the store's error, which is neither transient
// (no try of the item counted) nor the site's answer. Once the store is
// healthy again, requests go out.
func TestStoreGateSendsNothing(t *testing.T) {
	var h health
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) { o.Store = &h })
	site := r.web.Host("blog.example")
	site.Robots("User-agent: *\nAllow: /\n")
	site.Put("/a", "text/html", "<p>a</p>")
	site.Put("/b", "text/html", "<p>b</p>")
	fresh := r.web.Host("fresh.example") // robots.txt never read
	fresh.Put("/c", "text/html", "<p>c</p>")
	if res := r.get("http://blog.example/a", model.PurposePage); res.Outcome != model.OutcomeFetched {
		t.Fatalf("healthy store: %s %v", res.Outcome, res.Err)
	}
	full := errors.New("database or disk is full (13)")
	h.set(full)
	reqs, recs := len(r.web.Requests()), len(r.records())
	for _, u := range []string{"http://blog.example/b", "http://fresh.example/c", "http://blog.example/robots.txt"} {
		p := model.PurposePage
		if strings.HasSuffix(u, "robots.txt") {
			p = model.PurposeRobots
		}
		res := r.get(u, p)
		if !errors.Is(res.Err, fetch.ErrStoreDown) || !errors.Is(res.Err, full) {
			t.Errorf("%s with the store down: %s %v, want ErrStoreDown with the store's error", u, res.Outcome, res.Err)
		}
		if res.Transient() {
			t.Errorf("%s: a request the store could not record counts as a transient fault of the item", u)
		}
		if got := res.Reason(); got != "store cannot record" {
			t.Errorf("%s: reason %q", u, got)
		}
	}
	if _, err := r.f.Robots(context.Background(), "http://fresh.example/"); !errors.Is(err, fetch.ErrStoreDown) {
		t.Errorf("robots.txt entry of a fresh origin with the store down: %v", err)
	}
	if got := r.web.Requests()[reqs:]; len(got) != 0 {
		t.Errorf("%d requests sent while the store could not record them: %v", len(got), got)
	}
	if got := r.records()[recs:]; len(got) != 0 {
		t.Errorf("%d records of requests not sent: %v", len(got), got)
	}
	h.set(nil)
	if res := r.get("http://blog.example/b", model.PurposePage); res.Outcome != model.OutcomeFetched {
		t.Errorf("store healthy again: %s %v", res.Outcome, res.Err)
	}
	r.clean(r.s.MinGap)
}

// An opt-out check that fails sends nothing, as before, but says what it
// is: ErrStoreDown, "opt-out check failed", not ErrOptedOut.
func TestOptOutCheckFailedIsNotAnOptOut(t *testing.T) {
	var failing atomic.Bool
	down := errors.New("connection refused")
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.OptedOut = func(context.Context, string) (bool, error) {
			if failing.Load() {
				return true, down
			}
			return false, nil
		}
	})
	site := r.web.Host("blog.example")
	site.Robots("User-agent: *\nAllow: /\n")
	site.Put("/a", "text/html", "<p>a</p>")
	site.Put("/b", "text/html", "<p>b</p>")
	if res := r.get("http://blog.example/a", model.PurposePage); res.Outcome != model.OutcomeFetched {
		t.Fatalf("before: %s %v", res.Outcome, res.Err)
	}
	failing.Store(true)
	reqs := len(r.web.Requests())
	res := r.get("http://blog.example/b", model.PurposePage)
	if errors.Is(res.Err, fetch.ErrOptedOut) || res.Outcome == model.OutcomeOptedOut {
		t.Errorf("a failed check reported as an opt-out: %s %v", res.Outcome, res.Err)
	}
	if !errors.Is(res.Err, fetch.ErrStoreDown) || !errors.Is(res.Err, down) || !errors.Is(res.Err, fetch.ErrOptOutCheck) {
		t.Errorf("a failed check: %s %v", res.Outcome, res.Err)
	}
	if res.Transient() {
		t.Error("a failed check counts as a transient fault of the item")
	}
	if n := len(r.web.Requests()) - reqs; n != 0 {
		t.Errorf("%d requests sent on a failed opt-out check", n)
	}
}
