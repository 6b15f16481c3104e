package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

// A source's page says why its discovery last failed, in the words the
// site may show (an internal error text is "other"), and a sitemap's note
// (a cut at the protocol's limit) beside its state.
func TestSourcePageErrorAndNote(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	db := r.data.db
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.PostponeDiscovery(ctx, r.ids["gamma"], store.Retry{Attempts: 1, At: testNow.Add(time.Hour), Error: "robots.txt unreachable: DNS failure"}))
	must(db.PostponeDiscovery(ctx, r.ids["beta"], store.Retry{Attempts: 1, At: testNow.Add(time.Hour), Error: "homepage: " + secretError}))
	sms, err := db.SourceSitemaps(ctx, r.ids["alpha"])
	must(err)
	const note = "cut at the protocol's limit (more than 50000 entries): the first 50000 entries kept"
	sms[0].Note = note
	must(db.UpdateSitemap(ctx, sms[0]))

	for _, tc := range []struct {
		path string
		want []string
		not  []string
	}{
		{"/sources/gamma.blogspot.com", []string{"Last failure: robots.txt unreachable: DNS failure."}, nil},
		{"/sources/beta.example", []string{"Last failure: homepage: other."}, []string{secretError}},
		{"/sources/alpha.example", []string{"cut at the protocol&#39;s limit (more than 50000 entries): the first 50000 entries kept"}, []string{"Last failure"}},
	} {
		got := r.get(tc.path)
		if got.Code != http.StatusOK {
			t.Fatalf("%s: %d", tc.path, got.Code)
		}
		for _, w := range tc.want {
			if !strings.Contains(got.Body, w) {
				t.Errorf("%s lacks %q", tc.path, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got.Body, n) {
				t.Errorf("%s shows %q", tc.path, n)
			}
		}
	}
	api := r.get("/api/sources/gamma.blogspot.com")
	if !strings.Contains(api.Body, `"error": "robots.txt unreachable: DNS failure"`) {
		t.Errorf("the API does not carry the error: %s", api.Body)
	}
}
