package crawl_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
)

// A simulation's settings (issue 14): FEED_INTERVAL and FEED_MAX_INTERVAL
// 0 on either schedule. The rounds calibrate and run without a panic, and
// a feed is read again at the next round on the fixed schedule; the
// adaptive one reads it again once (its first read is the fixed
// rotation's), then keeps its floor of an hour.
func TestZeroFeedInterval(t *testing.T) {
	for _, tt := range []struct {
		schedule string
		// wantReads is the feed reads after each of the rounds, a minute apart.
		wantReads []int
	}{
		{config.ScheduleFixed, []int{1, 2, 3, 4}},
		{config.ScheduleAdaptive, []int{1, 2, 3, 4}},
	} {
		t.Run(tt.schedule, func(t *testing.T) {
			w := newWorldWith(t, "", false, func(s *config.Settings) {
				s.FeedSchedule = tt.schedule
				s.FeedInterval = 0
				s.FeedMaxInterval = 0
			})
			ctx := context.Background()
			// Before any source: calibration over no feeds.
			if err := w.c.Once(ctx); err != nil {
				t.Fatal(err)
			}
			h := w.web.Host("zero.example")
			h.Robots("User-agent: *\nAllow: /\n")
			h.Put("/", htmlType, homepage("/feed"))
			var items []item
			for n := 1; n <= 3; n++ {
				u := fmt.Sprintf("/post/%d", n)
				items = append(items, item{h.URL(u), fmt.Sprintf("Post %d", n), start.Add(-time.Duration(n) * time.Hour), false})
				h.Put(u, htmlType, article(fmt.Sprintf("Post %d", n), "zero interval text", ""))
			}
			h.Put("/feed", rssType, rss(items))
			if _, _, err := w.db.AddSource(ctx, "http://zero.example/", w.clock.Now()); err != nil {
				t.Fatal(err)
			}
			for round, want := range tt.wantReads {
				w.clock.Advance(time.Minute)
				if err := w.c.Once(ctx); err != nil {
					t.Fatalf("round %d: %v", round+1, err)
				}
				reads := 0
				for _, r := range w.web.RequestsTo("zero.example") {
					if r.URI == "/feed" {
						reads++
					}
				}
				if reads != want {
					t.Errorf("after round %d: %d feed reads, want %d", round+1, reads, want)
				}
			}
			if p := w.post(h.URL("/post/3")); p.State != "indexed" {
				t.Errorf("post 3 is %q, want indexed", p.State)
			}
			w.clean()
		})
	}
}
