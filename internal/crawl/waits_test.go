package crawl_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// A post that redirects into another site whose robots.txt cannot be
// read was put off for a day, on the post's own robots.txt's schedule, and
// never counted as failed. The redirect is the post's answer: its tries
// are counted, on the retry schedule, and it ends in error with the
// reason once they are spent.
func TestRedirectIntoUnreachableRobotsCountsTries(t *testing.T) {
	w := newWorldWith(t, "", false, func(s *config.Settings) {
		s.RetryAttempts, s.RetryWindow, s.RobotsGuessTTL = 3, time.Hour, time.Minute
	})
	a := w.web.Host("a.example")
	a.Robots("User-agent: *\nAllow: /\n")
	a.Put("/", htmlType, homepage("/feed"))
	a.Put("/feed", rssType, rss([]item{{a.URL("/p1"), "Moved", day0, false}}))
	a.Handle("/p1", simweb.Redirect(http.StatusFound, "http://b.example/p1"))
	b := w.web.Host("b.example")
	b.Handle("/robots.txt", simweb.Status(http.StatusServiceUnavailable))
	b.Put("/p1", htmlType, article("Moved", "text", ""))
	ctx := context.Background()
	if _, _, err := w.db.AddSource(ctx, a.URL("/"), w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	var tries []int
	for range 8 {
		if err := w.c.Once(ctx); err != nil {
			t.Fatal(err)
		}
		p := w.post(a.URL("/p1"))
		tries = append(tries, p.Attempts)
		if p.State == model.PostError {
			if !strings.Contains(p.Error, "robots.txt of b.example unreachable") {
				t.Errorf("error %q does not name the unreachable robots.txt", p.Error)
			}
			t.Logf("tries after each run: %v", tries)
			for _, q := range w.web.RequestsTo("b.example") {
				if q.URI != "/robots.txt" {
					t.Errorf("%s asked of a site whose robots.txt never answered", q.URI)
				}
			}
			w.clean()
			return
		}
		w.clock.Advance(time.Hour)
	}
	t.Fatalf("after 8 runs an hour apart the post is %s with tries %v, want error after 3", w.post(a.URL("/p1")).State, tries)
}
