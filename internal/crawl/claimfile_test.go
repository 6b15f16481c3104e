package crawl_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/crawl"
)

func TestClaimFiles(t *testing.T) {
	w := newWorld(t, "")
	h := w.web.Host("owner.example")
	h.Robots("User-agent: *\nDisallow: /private/\n")
	h.Put("/.well-known/corpusbot-claim.txt", "text/plain", "corpusbot-claim=abc\n"+strings.Repeat("x", 10000))
	h.Put("/private/claim.txt", "text/plain", "abc")
	h.Handle("/moved.txt", http.RedirectHandler("http://elsewhere.example/claim.txt", http.StatusFound))
	w.web.Host("elsewhere.example").Put("/claim.txt", "text/plain", "abc")
	cf := crawl.ClaimFiles{Fetcher: w.c.Fetcher, Max: 4096}
	ctx := context.Background()
	body, err := cf.FetchClaimFile(ctx, "http://owner.example/.well-known/corpusbot-claim.txt")
	if err != nil || len(body) != 4096 || !strings.HasPrefix(string(body), "corpusbot-claim=abc") {
		t.Fatalf("claim file: %d bytes, %v", len(body), err)
	}
	for _, tc := range []struct{ url, want string }{
		{"http://owner.example/missing.txt", "404 Not Found"},
		{"http://owner.example/private/claim.txt", "disallowed by robots.txt"},
		{"http://owner.example/moved.txt", "redirected to another site"},
	} {
		if _, err := cf.FetchClaimFile(ctx, tc.url); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.url, err, tc.want)
		}
	}
	w.clean()
}
