package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/simweb"
)

// A blog of the adaptive test: it publishes a post every `every`, and its
// feed lists the newest ten published by the time of the request.
type pacedBlog struct {
	host  string
	every time.Duration
}

func (b pacedBlog) published(n int) time.Time { return start.Add(time.Duration(n-10) * b.every) }

// serve adds the blog to web; now is the simulated clock.
func (b pacedBlog) serve(web *simweb.Web, now func() time.Time) {
	h := web.Host(b.host)
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	h.Handle("/feed", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last := 0
		for b.published(last+1).Before(now()) || b.published(last+1).Equal(now()) {
			last++
		}
		var items []item
		for n := last; n > last-10 && n > 0; n-- {
			items = append(items, item{h.URL(fmt.Sprintf("/post/%d", n)), fmt.Sprintf("Post %d", n), b.published(n), false})
		}
		w.Header().Set("Content-Type", rssType)
		fmt.Fprint(w, rss(items))
	}))
	h.Handle("/post/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", htmlType)
		fmt.Fprint(w, article("A post", "adaptive text", ""))
	}))
}

// The adaptive test's time: hourly rounds for two simulated weeks, the
// delays measured on posts of the last nine days (the first five let the
// schedule learn).
const (
	runEvery  = time.Hour
	fortnight = 14 * 24 * time.Hour
	learning  = 5 * 24 * time.Hour
)

// crawlFortnight runs `run` for two simulated weeks over a busy blog (a
// post every 8 hours) and a quiet one (every 5 days) on the given
// schedule, and reports the feed polls of each and the mean delay from a
// post's publication to its page being fetched.
func crawlFortnight(t *testing.T, sched string) (polls map[string]int, meanDelay time.Duration) {
	w := newWorld(t, "")
	w.s.FeedSchedule = sched
	w.s.RunInterval = runEvery
	w.c.Settings = w.s
	blogs := []pacedBlog{{"busy.example", 8 * time.Hour}, {"quiet.example", 5 * 24 * time.Hour}}
	ctx := context.Background()
	for _, b := range blogs {
		b.serve(w.web, w.clock.Now)
		if _, _, err := w.db.AddSource(ctx, "http://"+b.host+"/", w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// The first round discovers; then each hour's feed reads and the pages
	// they owe (the rest of a round has nothing to do on these blogs).
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	for range int(fortnight / runEvery) {
		w.clock.Advance(runEvery)
		if _, err := w.c.FetchArticles(ctx, w.s.FeedBudget); err != nil {
			t.Fatal(err)
		}
	}
	w.clean()
	polls = map[string]int{}
	var total time.Duration
	var n int
	fetched := map[string]bool{}
	for _, r := range w.web.Requests() {
		if r.URI == "/feed" {
			polls[r.Host]++
		}
		if !strings.HasPrefix(r.URI, "/post/") || fetched[r.Host+r.URI] {
			continue
		}
		fetched[r.Host+r.URI] = true
		for _, b := range blogs {
			num, _ := strconv.Atoi(strings.TrimPrefix(r.URI, "/post/"))
			if b.host == r.Host && b.published(num).After(start.Add(learning)) {
				total += r.Start.Sub(b.published(num))
				n++
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: no post of the second week fetched", sched)
	}
	return polls, total / time.Duration(n)
}

// The adaptive schedule reads the busy feed more often and the quiet one
// less, spends no more reads than the fixed rotation, and finds posts
// sooner on average.
func TestAdaptiveSchedule(t *testing.T) {
	fixedPolls, fixedDelay := crawlFortnight(t, config.ScheduleFixed)
	adaptivePolls, adaptiveDelay := crawlFortnight(t, config.ScheduleAdaptive)
	t.Logf("fixed: polls %v, mean delay %v; adaptive: polls %v, mean delay %v", fixedPolls, fixedDelay, adaptivePolls, adaptiveDelay)
	sum := func(m map[string]int) int { return m["busy.example"] + m["quiet.example"] }
	if sum(adaptivePolls) > sum(fixedPolls)+2 {
		t.Errorf("adaptive spent %d feed reads, fixed %d: it must not spend more", sum(adaptivePolls), sum(fixedPolls))
	}
	if adaptivePolls["busy.example"] <= fixedPolls["busy.example"] || adaptivePolls["quiet.example"] >= fixedPolls["quiet.example"] {
		t.Errorf("adaptive did not move reads from the quiet feed to the busy one: %v vs fixed %v", adaptivePolls, fixedPolls)
	}
	if adaptiveDelay >= fixedDelay {
		t.Errorf("adaptive mean delay %v, fixed %v: adaptive must find posts sooner", adaptiveDelay, fixedDelay)
	}
}
