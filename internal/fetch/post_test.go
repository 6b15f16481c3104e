package fetch_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// A hub request is a POST of the form, under the hub's lease, through the
// guard, recorded like any request, and sent without asking robots.txt
// (the hub's API is not crawled) — but never to a site that opted out.
func TestPostToHub(t *testing.T) {
	var mu sync.Mutex
	var got []url.Values
	var types []string
	optedOut := false
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.OptedOut = func(_ context.Context, site string) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return optedOut && site == "hub.example", nil
		}
	})
	h := r.web.Host("hub.example")
	h.Robots("User-agent: *\nDisallow: /\n") // governs crawling, not the API
	h.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			http.Error(w, "POST", http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(req.Body)
		q, _ := url.ParseQuery(string(b))
		mu.Lock()
		got, types = append(got, q), append(types, req.Header.Get("Content-Type"))
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	h.Handle("/moved", simweb.Redirect(http.StatusTemporaryRedirect, "http://hub.example/"))
	ctx := context.Background()
	form := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {"https://blog.example/feed"}}
	for range 2 {
		res := r.f.Fetch(ctx, fetch.Request{URL: "http://hub.example/", Purpose: model.PurposeWebSub, Form: form})
		want(t, res, model.OutcomeFetched)
		if res.Status != http.StatusAccepted {
			t.Errorf("status %d", res.Status)
		}
	}
	if len(got) != 2 || got[0].Get("hub.topic") != "https://blog.example/feed" || types[0] != "application/x-www-form-urlencoded" {
		t.Fatalf("hub got %v (%v)", got, types)
	}
	for _, u := range r.uris("hub.example") {
		if u == "/robots.txt" {
			t.Error("robots.txt asked of a hub")
		}
	}
	recs := r.records()
	if len(recs) != 2 || recs[0].Purpose != model.PurposeWebSub || recs[0].Status != http.StatusAccepted {
		t.Errorf("records %+v", recs)
	}
	reqs := r.web.RequestsTo("hub.example")
	if gap := reqs[1].Start.Sub(reqs[0].End); gap < time.Second {
		t.Errorf("two hub requests %v apart, under MIN_GAP", gap)
	}

	// A redirect is not followed: a POST does not become a GET elsewhere.
	res := r.f.Fetch(ctx, fetch.Request{URL: "http://hub.example/moved", Purpose: model.PurposeWebSub, Form: form})
	want(t, res, model.OutcomeStatus)
	if len(got) != 2 {
		t.Error("redirect followed")
	}

	// A form is only for hubs.
	res = r.f.Fetch(ctx, fetch.Request{URL: "http://hub.example/", Purpose: model.PurposePage, Form: form})
	want(t, res, model.OutcomeError)

	// The opt-out holds for hubs too.
	mu.Lock()
	optedOut = true
	mu.Unlock()
	n := len(r.web.Requests())
	res = r.f.Fetch(ctx, fetch.Request{URL: "http://hub.example/", Purpose: model.PurposeWebSub, Form: form})
	if !errors.Is(res.Err, fetch.ErrOptedOut) || len(r.web.Requests()) != n {
		t.Errorf("to an opted-out hub: %s %v", res.Outcome, res.Err)
	}
}

// The guard stays on for hubs: a hub on a private address is refused.
func TestPostGuarded(t *testing.T) {
	r := newRig(t, false, nil)
	r.web.Resolve("hub.internal", netip.MustParseAddr("10.0.0.1"))
	res := r.f.Fetch(context.Background(), fetch.Request{URL: "http://hub.internal/", Purpose: model.PurposeWebSub, Form: url.Values{"a": {"b"}}})
	want(t, res, model.OutcomeError)
	if len(r.web.Requests()) != 0 {
		t.Error("a request reached the web")
	}
}

// An IndexNow key file is read as a token, whatever its type.
func TestIndexNowKeyFile(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("blog.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/abcd1234.txt", "application/octet-stream", "abcd1234")
	res := r.get("http://blog.example/abcd1234.txt", model.PurposeIndexNow)
	want(t, res, model.OutcomeFetched)
	if string(res.Body) != "abcd1234" {
		t.Errorf("body %q", res.Body)
	}
}
