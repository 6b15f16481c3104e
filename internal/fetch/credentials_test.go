package fetch_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// A URL with user information that reaches the fetcher (a feed or a page
// may name one, whatever sources add refuses) is fetched without it: no
// request carries Authorization, and neither the records, the result nor
// the archive hold the password. A redirect whose Location carries user
// information is followed without it.
func TestNoCredentialsSent(t *testing.T) {
	var archived []fetch.ArchivedExchange
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.Archive = func(_ context.Context, ex fetch.ArchivedExchange) { archived = append(archived, ex) }
	})
	h := r.web.Host("creds.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/feed", "application/rss+xml", rss)
	h.Put("/page", "text/html", "<html><body><p>a page</p></body></html>")
	h.Put("/landing", "text/html", "<html><body><p>landed</p></body></html>")
	h.Handle("/hop", simweb.Redirect(http.StatusMovedPermanently, "http://other:s3cret@creds.example/landing"))
	hub := r.web.Host("hub.creds.example")
	hub.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }))

	ctx := context.Background()
	for _, c := range []struct {
		url      string
		purpose  model.Purpose
		final    string
		redirect string
	}{
		{"http://user:s3cret@creds.example/feed", model.PurposeFeed, "http://creds.example/feed", ""},
		{"http://user@creds.example/page", model.PurposePage, "http://creds.example/page", ""},
		{"http://:s3cret@creds.example/page", model.PurposePage, "http://creds.example/page", ""},
		{"http://@creds.example/page", model.PurposePage, "http://creds.example/page", ""},
		{"http://user:s3cret@creds.example/hop", model.PurposePage, "http://creds.example/landing", "http://creds.example/landing"},
	} {
		res := r.f.Fetch(ctx, fetch.Request{URL: c.url, Purpose: c.purpose})
		want(t, res, model.OutcomeFetched)
		if res.FinalURL != c.final {
			t.Errorf("%s: final URL %q, want %q", c.url, res.FinalURL, c.final)
		}
		if c.redirect != "" && (len(res.Redirects) != 1 || res.Redirects[0] != c.redirect) {
			t.Errorf("%s: redirects %q, want [%q]", c.url, res.Redirects, c.redirect)
		}
	}
	res := r.f.Fetch(ctx, fetch.Request{URL: "http://user:s3cret@hub.creds.example/", Purpose: model.PurposeWebSub,
		Form: url.Values{"hub.mode": {"subscribe"}}})
	want(t, res, model.OutcomeFetched)
	entry, err := r.f.Robots(ctx, "http://user:s3cret@creds.example/x")
	if err != nil || entry.Verdict.State == "" {
		t.Errorf("Robots: %+v, %v", entry, err)
	}
	for _, raw := range []string{"ftp://user:s3cret@creds.example/", "http://user:s3cret@creds.example/a\x01", "http://user:s3cret@creds.example:x/"} {
		bad := r.f.Fetch(ctx, fetch.Request{URL: raw, Purpose: model.PurposePage})
		want(t, bad, model.OutcomeError)
		if strings.Contains(bad.FinalURL, "s3cret") || strings.Contains(bad.Err.Error(), "s3cret") {
			t.Errorf("refused URL shown with its password: %q, %v", bad.FinalURL, bad.Err)
		}
		if _, err := r.f.Robots(ctx, raw); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Robots(%q): %v", raw, err)
		}
	}

	reqs := r.web.Requests()
	if len(reqs) < 8 {
		t.Fatalf("%d requests seen, want at least 8: %+v", len(reqs), reqs)
	}
	for _, q := range reqs {
		if a := q.Header.Values("Authorization"); len(a) > 0 {
			t.Errorf("%s%s sent Authorization %q", q.Host, q.URI, a)
		}
	}
	recs := r.records()
	if len(recs) == 0 {
		t.Fatal("no records")
	}
	for _, rec := range recs {
		if strings.Contains(rec.URL, "@") || strings.Contains(rec.URL, "s3cret") {
			t.Errorf("record URL %q carries user information", rec.URL)
		}
		if rec.Err != nil && strings.Contains(rec.Err.Error(), "s3cret") {
			t.Errorf("record error %v carries the password", rec.Err)
		}
	}
	if len(archived) == 0 {
		t.Fatal("nothing archived")
	}
	for _, ex := range archived {
		if strings.Contains(ex.URL, "@") || ex.RequestHeader.Get("Authorization") != "" {
			t.Errorf("archived %q with header %v", ex.URL, ex.RequestHeader)
		}
	}
}
