package fetch_test

import (
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// Go's transport silently resends a GET once when a reused connection dies
// under it; the fetcher must not, since that second request would skip the
// lease and the gap.
func TestResetOnReusedConnectionNotRetried(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("rst.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/ok", "text/html", simweb.HTMLPage)
	h.Handle("/reset", simweb.Reset())
	want(t, r.get(h.URL("/ok"), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(h.URL("/reset"), model.PurposePage), model.OutcomeError)
	n := 0
	for _, u := range r.uris(h.Name()) {
		if u == "/reset" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("/reset asked %d times for one fetch", n)
	}
	if d := r.web.Dials(""); d != 1 {
		t.Logf("%d dials", d)
	}
}
