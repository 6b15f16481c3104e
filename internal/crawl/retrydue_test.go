package crawl_test

import (
	"context"
	"net/http"
	"testing"

	"corpus.blog/corpusbot/internal/simweb"
)

// A retry that comes due while the site's pass is still at work is taken
// in the same visit, not left owed: two hosts of one site, the first
// whose robots.txt answers 503 once (asked again once the site's back-off
// allows, 2 s on), the second whose discovery, behind that back-off and
// its own gaps, takes the pass past that retry. The broken host's
// robots.txt is asked again within the round and its source discovered.
func TestRetryDueDuringThePassIsTakenInTheVisit(t *testing.T) {
	w, _ := newEventWorld(t, nil)
	ctx := context.Background()
	down := w.web.Host("down.shared.example")
	down.Robots("User-agent: *\nAllow: /\n")
	down.RobotsFault(1, simweb.Status(http.StatusServiceUnavailable))
	down.Put("/", htmlType, homepage("/feed"))
	down.Put("/feed", rssType, rss([]item{{down.URL("/p1"), "One", day0, true}}))
	up := w.web.Host("up.shared.example")
	up.Robots("User-agent: *\nAllow: /\n")
	up.Put("/", htmlType, homepage("/feed"))
	up.Put("/feed", rssType, rss([]item{{up.URL("/p1"), "One", day0, true}}))
	var ids []int64
	for _, u := range []string{"http://down.shared.example/", "http://up.shared.example/"} {
		src, _, err := w.db.AddSource(ctx, u, w.fclock.Now())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, src.ID)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	w.clean()
	var robots []int
	for _, r := range w.web.RequestsTo("down.shared.example") {
		if r.URI == "/robots.txt" {
			robots = append(robots, r.Status)
		}
	}
	if len(robots) != 2 || robots[1] != http.StatusOK {
		t.Errorf("robots.txt of the broken host answered %v in the round, want 503 then 200", robots)
	}
	for _, id := range ids {
		src, err := w.db.Source(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if src.Discovered.IsZero() {
			t.Errorf("%s not discovered in the round (%s)", src.URL, src.Error)
		}
	}
}
