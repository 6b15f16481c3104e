package fetch_test

import (
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// With a body budget of 100 KB, a page of 80 KB held by its caller keeps
// another from being read until it is released; one dropped without a
// release comes back when it is collected; the wait happens inside the request,
// once its headers are in.
func TestBodyBudgetHoldsBodiesBack(t *testing.T) {
	r := newRig(t, true, func(s *config.Settings, o *fetch.Options) {
		s.MinGap, o.BodyBudget = time.Millisecond, 100<<10
	})
	page := "<!doctype html><title>x</title><p>" + strings.Repeat("words ", 80<<10/6) + "</p>"
	for _, h := range []string{"a.example", "b.example", "c.example"} {
		r.web.Host(h).Put("/p", "text/html; charset=utf-8", page)
	}
	first := r.get("http://a.example/p", model.PurposePage)
	if first.Outcome != model.OutcomeFetched || r.f.BodyBudgetUsed() < int64(len(page)) {
		t.Fatalf("first: %v %v, budget used %d", first.Outcome, first.Err, r.f.BodyBudgetUsed())
	}
	done := make(chan fetch.Result, 1)
	go func() { done <- r.get("http://b.example/p", model.PurposePage) }()
	select {
	case res := <-done:
		t.Fatalf("a second 80 KB body read while the first was held: %v", res.Outcome)
	case <-time.After(300 * time.Millisecond):
	}
	first.Release()
	var second fetch.Result
	select {
	case second = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the second body still waits after the first was released")
	}
	if second.Outcome != model.OutcomeFetched || len(second.Body) != len(page) {
		t.Fatalf("second: %v %v, %d bytes", second.Outcome, second.Err, len(second.Body))
	}
	second = fetch.Result{} // dropped without a release: collected in time
	third := make(chan fetch.Result, 1)
	go func() { third <- r.get("http://c.example/p", model.PurposePage) }()
	select {
	case res := <-third:
		if res.Outcome != model.OutcomeFetched {
			t.Fatalf("third: %v %v", res.Outcome, res.Err)
		}
		res.Release()
	case <-time.After(10 * time.Second):
		t.Fatal("a body dropped unreleased never gave its room back")
	}
	if used := r.f.BodyBudgetUsed(); used > int64(len(page))+1 {
		t.Errorf("budget used %d with nothing held but a collected body", used)
	}
	// b's page waited inside its request, its headers had, its body unread.
	for _, rec := range r.records() {
		if rec.URL == "http://b.example/p" && rec.Duration < 250*time.Millisecond {
			t.Errorf("b's page took %v: it did not wait for room", rec.Duration)
		}
	}
}
