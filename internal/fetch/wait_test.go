package fetch_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// memWaits is a fetch.Waits in memory, as a store keeps it.
type memWaits struct {
	mu    sync.Mutex
	m     map[string]model.SiteWait
	saves int
}

func (w *memWaits) LoadWaits(_ context.Context, _ time.Time) ([]model.SiteWait, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []model.SiteWait
	for _, x := range w.m {
		out = append(out, x)
	}
	return out, nil
}

func (w *memWaits) SaveWait(_ context.Context, x model.SiteWait) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.saves++
	if w.m == nil {
		w.m = map[string]model.SiteWait{}
	}
	if x.Gap == 0 && x.Until.IsZero() {
		delete(w.m, x.Site)
	} else {
		w.m[x.Site] = x
	}
	return nil
}

func (w *memWaits) get(site string) (model.SiteWait, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	x, ok := w.m[site]
	return x, ok
}

// A lease under a horizon waits out a wait within it, and gives the site
// back at once with a *WaitError beyond it; a floor (a Crawl-delay) is
// waited up to MaxWaitedFloor whatever the horizon.
func TestLocalLeaseHorizon(t *testing.T) {
	clock := simweb.NewClock(start)
	l := fetch.NewLocalLease(clock)
	ctx := fetch.WithWaitHorizon(context.Background(), 30*time.Second)
	cases := []struct {
		name  string
		next  time.Duration // after the last end, the site's next permitted request
		floor time.Duration
		wait  bool // waited (else a WaitError)
	}{
		{"no wait", 0, time.Second, true},
		{"within the horizon", 20 * time.Second, time.Second, true},
		{"at the horizon", 30 * time.Second, time.Second, true},
		{"beyond the horizon", 31 * time.Second, time.Second, false},
		{"a day's Retry-After", 24 * time.Hour, time.Second, false},
		{"a one-minute Crawl-delay", time.Minute, time.Minute, true},
		{"a floor beyond MaxWaitedFloor", time.Hour, time.Hour, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			site := string(rune('a'+i)) + ".example"
			s, err := l.Acquire(context.Background(), site, 0)
			if err != nil {
				t.Fatal(err)
			}
			end := clock.Now()
			s.Release(end, end.Add(tc.next))
			before := clock.Now()
			s, err = l.Acquire(ctx, site, tc.floor)
			var we *fetch.WaitError
			switch {
			case tc.wait && err != nil:
				t.Fatalf("Acquire: %v, want a wait", err)
			case tc.wait:
				if got := clock.Now().Sub(before); got != max(tc.next, tc.floor) {
					t.Errorf("waited %v, want %v", got, max(tc.next, tc.floor))
				}
				s.Abandon()
			case !errors.As(err, &we):
				t.Fatalf("Acquire: %v, want a WaitError", err)
			default:
				if !we.Until.Equal(end.Add(tc.next)) || we.Site != site {
					t.Errorf("WaitError %+v, want %s until %v", we, site, end.Add(tc.next))
				}
				if !clock.Now().Equal(before) {
					t.Errorf("the clock moved %v before the WaitError", clock.Now().Sub(before))
				}
				// The site was given back: taken again at once without a horizon.
				done := make(chan struct{})
				go func() {
					s, err := l.Acquire(context.Background(), site, 0)
					if err == nil {
						s.Abandon()
					}
					close(done)
				}()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("the site was not given back")
				}
			}
		})
	}
}

// A site that answers 503 with a day's Retry-After has its wait stored;
// the next request under a horizon is not sent (OutcomeWaiting); a new
// fetcher over the same store (the next process) honours the wait too;
// and once the site answers well again, its stored wait is deleted.
func TestWaitsSurviveTheProcess(t *testing.T) {
	waits := &memWaits{}
	tweak := func(s *config.Settings, o *fetch.Options) { o.Waits = waits }
	r := newRig(t, false, tweak)
	h := r.web.Host("busy.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/a", simweb.Unavailable("86400"))
	h.Put("/b", "text/html", simweb.HTMLPage)
	want(t, r.get(h.URL("/a"), model.PurposePage), model.OutcomeStatus)
	w, ok := waits.get("busy.example")
	if !ok || w.Until.Sub(r.clock.Now()) < 23*time.Hour || !w.Next.Equal(w.Until) {
		t.Fatalf("stored wait after Retry-After 86400: %+v, %v", w, ok)
	}
	ctx := fetch.WithWaitHorizon(context.Background(), 30*time.Second)
	res := r.f.Fetch(ctx, fetch.Request{URL: h.URL("/b"), Purpose: model.PurposePage})
	if res.Outcome != model.OutcomeWaiting || res.Transient() {
		t.Fatalf("under a horizon: %s (transient %v), %v; want waiting, not transient", res.Outcome, res.Transient(), res.Err)
	}
	if until, ok := fetch.WaitUntil(res.Err); !ok || !until.Equal(w.Next) {
		t.Errorf("WaitUntil = %v, %v; want %v", until, ok, w.Next)
	}
	// Said in the record, as every request declined is: no status, the
	// waiting outcome, the reason.
	recs := r.records()
	if last := recs[len(recs)-1]; last.Outcome != model.OutcomeWaiting || last.Status != 0 || last.URL != h.URL("/b") {
		t.Errorf("last record %+v, want the waiting request to /b", last)
	}

	// The next process: a new fetcher and lease over the same waits, on a
	// clock an hour on.
	r.clock.Advance(time.Hour)
	r2 := &rig{t: t, web: r.web, clock: r.clock, s: r.s}
	f2, err := fetch.New(fetch.Options{Settings: r.s, Clock: r.clock, Resolver: r.web.Resolver(), Dial: r.web.Dial,
		Proxy: fetch.NoProxy, TLS: r.web.ClientTLS(), Logger: discard, Waits: waits, Timeouts: fetch.Timeouts{Total: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f2.CloseIdleConnections)
	r2.f = f2
	asked := len(r.web.RequestsTo("busy.example"))
	res = f2.Fetch(ctx, fetch.Request{URL: h.URL("/b"), Purpose: model.PurposePage})
	if res.Outcome != model.OutcomeWaiting {
		t.Fatalf("the next process asked the site: %s, %v", res.Outcome, res.Err)
	}
	if n := len(r.web.RequestsTo("busy.example")) - asked; n != 0 {
		t.Errorf("the next process sent %d requests to a site that asked for a day", n)
	}

	// A day on, the site answers again: the wait is gone from the store.
	r.clock.Advance(24 * time.Hour)
	want(t, f2.Fetch(ctx, fetch.Request{URL: h.URL("/b"), Purpose: model.PurposePage}), model.OutcomeFetched)
	if w, ok := waits.get("busy.example"); ok {
		t.Errorf("the wait is still stored after a success: %+v", w)
	}
	// A healthy site writes nothing.
	saves := waits.saves
	ok2 := r.web.Host("fine.example")
	ok2.Robots("User-agent: *\nAllow: /\n")
	ok2.Put("/", "text/html", simweb.HTMLPage)
	for range 3 {
		want(t, f2.Fetch(ctx, fetch.Request{URL: ok2.URL("/"), Purpose: model.PurposePage}), model.OutcomeFetched)
	}
	if waits.saves != saves {
		t.Errorf("a healthy site's requests wrote %d waits", waits.saves-saves)
	}
}

// Errors widen the back-off until the next request would wait beyond the
// horizon: then the fetcher answers OutcomeWaiting, and the stored wait
// names the same time.
func TestBackoffBeyondHorizonIsStored(t *testing.T) {
	waits := &memWaits{}
	r := newRig(t, false, func(s *config.Settings, o *fetch.Options) { o.Waits = waits })
	h := r.web.Host("down.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/x", simweb.Status(503))
	ctx := fetch.WithWaitHorizon(context.Background(), 30*time.Second)
	var outcomes []model.Outcome
	for range 10 {
		res := r.f.Fetch(ctx, fetch.Request{URL: h.URL("/x"), Purpose: model.PurposePage})
		outcomes = append(outcomes, res.Outcome)
		if res.Outcome == model.OutcomeWaiting {
			until, _ := fetch.WaitUntil(res.Err)
			w, ok := waits.get("down.example")
			if !ok || !w.Next.Equal(until) || w.Gap <= 30*time.Second {
				t.Errorf("stored %+v (%v), want next %v and a gap over the horizon", w, ok, until)
			}
			break
		}
	}
	// Gaps 2, 4, 8, 16 s (from twice MIN_GAP) are waited; 32 s is not.
	if want := []model.Outcome{"status", "status", "status", "status", "status", "waiting"}; !slices.Equal(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	r.clean(r.s.MinGap)
}

// A URL with a control character (a tab, a NUL, DEL) can never be
// fetched: a final answer, not a fault to retry, and nothing is sent.
func TestControlCharacterURLIsFinal(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("ctl.example")
	h.Robots("User-agent: *\nAllow: /\n")
	for _, u := range []string{"http://ctl.example/a\tb", "http://ctl.example/a\x00b", "http://ctl.example/a\x7fb", "http://ctl.example/\x01"} {
		res := r.get(u, model.PurposePage)
		if res.Outcome != model.OutcomeError || res.Transient() || !errors.Is(res.Err, fetch.ErrBadURL) {
			t.Errorf("%q: %s, transient %v, %v; want a final bad-URL error", u, res.Outcome, res.Transient(), res.Err)
		}
	}
	if n := len(r.web.RequestsTo("ctl.example")); n != 0 {
		t.Errorf("%d requests sent for URLs that cannot be sent", n)
	}
}
