package fetch_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// A site's small error pages and redirects are read to their end so that
// the connection carries its next request; a large one is not downloaded,
// and its connection is dropped instead.
func TestSmallErrorBodiesKeepTheConnection(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("missing.example")
	h.Robots("User-agent: *\nAllow: /\n")
	large := strings.Repeat("x", 64<<10)
	h.Handle("/large-404", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(large)))
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(large))
	}))
	h.Handle("/moved", http.RedirectHandler("/elsewhere", http.StatusMovedPermanently))
	h.Handle("/gone", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	}))

	// robots.txt, then four small error answers and a redirect's hop (the
	// default 404 page, a 410, a 301 with its note): one connection.
	want(t, r.get(h.URL("/sitemap.xml"), model.PurposeSitemap), model.OutcomeStatus)
	want(t, r.get(h.URL("/sitemap_index.xml"), model.PurposeSitemap), model.OutcomeStatus)
	want(t, r.get(h.URL("/gone"), model.PurposePage), model.OutcomeStatus)
	want(t, r.get(h.URL("/moved"), model.PurposePage), model.OutcomeStatus) // /elsewhere: 404
	if n := r.web.Dials(""); n != 1 {
		t.Errorf("%d connections for 6 requests answered with small bodies, want 1", n)
	}
	// A 64 KiB error page is not read: its connection goes, and the next
	// request opens another.
	want(t, r.get(h.URL("/large-404"), model.PurposePage), model.OutcomeStatus)
	// On simulated time the next request would be sent while the server,
	// in real time, is still writing into the closed connection.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if reqs := r.web.RequestsTo(h.Name()); len(reqs) == 7 && !reqs[6].End.IsZero() {
			break
		}
	}
	want(t, r.get(h.URL("/sitemap.xml"), model.PurposeSitemap), model.OutcomeStatus)
	if n := r.web.Dials(""); n != 2 {
		t.Errorf("%d connections after a large error page, want 2", n)
	}
	if reqs := r.web.RequestsTo(h.Name()); len(reqs) != 8 {
		t.Fatalf("%d requests, want 8", len(reqs))
	}
	r.clean(r.s.MinGap)
}
