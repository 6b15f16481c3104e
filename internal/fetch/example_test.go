package fetch_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// One polite fetch, then a conditional re-read: robots.txt is read before
// the site's first page, the second request waits out MIN_GAP after the
// first ends, and the re-read sends the ETag back and costs a 304. The
// server is on loopback, which the private-address guard refuses unless
// ALLOW_PRIVATE is on, as it is here and nowhere else.
func ExampleFetcher() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nAllow: /\n")
		case "/post":
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<p>A post.</p>")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	s := config.Defaults()
	s.AllowPrivate = true
	s.MinGap = 50 * time.Millisecond
	var gaps []time.Time
	f, err := fetch.New(fetch.Options{Settings: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observe: func(r model.RequestRecord) {
			fmt.Println(r.Purpose, r.Status, strings.TrimPrefix(r.URL, srv.URL), "conditional:", r.Conditional)
			gaps = append(gaps, r.Start)
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.CloseIdleConnections()
	ctx := context.Background()
	first := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/post", Purpose: model.PurposePage})
	again := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/post", Purpose: model.PurposePage, ETag: first.ETag})
	fmt.Println(first.Outcome, string(first.Body), again.Outcome)
	fmt.Println("waited MIN_GAP:", gaps[2].Sub(gaps[1]) >= s.MinGap)
	// Output:
	// robots 200 /robots.txt conditional: false
	// page 200 /post conditional: false
	// page 304 /post conditional: true
	// fetched <p>A post.</p> unchanged
	// waited MIN_GAP: true
}
