package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// The retry tests: a fault that says "try later" leaves its item owed, and
// the item is asked again after the wait the server asked for, never
// sooner, and stored once it succeeds; after RETRY_ATTEMPTS tries it is an
// error with its reason. Asserted from the server's side (the recorder)
// and from the store's.

// faultClass is one kind of "try later".
type faultClass struct {
	name  string
	fault http.Handler
	asked time.Duration // the wait the server asked for (Retry-After)
}

func faultClasses() []faultClass {
	return []faultClass{
		{"429 Retry-After", simweb.TooMany("90"), 90 * time.Second},
		{"503 Retry-After", simweb.Unavailable("100"), 100 * time.Second},
		{"500", simweb.Status(http.StatusInternalServerError), 0},
		{"502", simweb.Status(http.StatusBadGateway), 0},
		{"408", simweb.Status(http.StatusRequestTimeout), 0},
		{"reset", simweb.Reset(), 0},
		{"timeout", simweb.Slow(3*time.Second, nil, simweb.NewResource(htmlType, simweb.HTMLPage)), 0},
	}
}

// retryKinds are the kinds of request a fault can strike, each on a blog
// of its own: kind -> the path that fails once and the posts the blog
// holds once every request has succeeded.
var retryKinds = []string{"page", "feed", "catalogue", "sitemap", "robots", "homepage", "candidate"}

// retryBlog builds one blog whose request of kind answers fault once, then
// heals. It returns the faulted path and the blog's posts.
func retryBlog(web *simweb.Web, host, kind string, fault http.Handler) (string, []string) {
	h := web.Host(host)
	flaky := func(path string, healthy http.Handler) string {
		h.Handle(path, simweb.Flaky(1, fault, healthy))
		return path
	}
	robots := "User-agent: *\nAllow: /\n"
	if kind == "sitemap" {
		robots += "Sitemap: http://" + host + "/sitemap.xml\n"
	}
	var faulted string
	h.Robots(robots)
	if kind == "robots" {
		h.RobotsFault(1, fault)
		faulted = "/robots.txt"
	}
	home := simweb.NewResource(htmlType, homepage("/feed"))
	if kind == "candidate" {
		home = simweb.NewResource(htmlType, "<html><head><title>No feed link</title></head><body>hi</body></html>")
	}
	if kind == "homepage" {
		faulted = flaky("/", home)
	} else {
		h.Handle("/", home)
	}
	posts := []string{h.URL("/post/1"), h.URL("/post/2")}
	feed := simweb.NewResource(rssType, rss([]item{{posts[0], "One", day0, false}}))
	switch kind {
	case "feed", "candidate":
		faulted = flaky("/feed", feed)
	default:
		h.Handle("/feed", feed)
	}
	page2 := simweb.NewResource(rssType, rss([]item{{posts[1], "Two", day0.Add(-time.Hour), false}}))
	if kind == "catalogue" {
		faulted = flaky("/feed?paged=2", page2)
	} else {
		h.Handle("/feed?paged=2", page2)
	}
	if kind == "sitemap" {
		posts = append(posts, h.URL("/post/3"))
		faulted = flaky("/sitemap.xml", simweb.NewResource(xmlType, urlset([]smURL{{posts[2], day0}})))
	}
	for i, p := range posts {
		page := simweb.NewResource(htmlType, article(fmt.Sprintf("Post %d", i+1), "retried text", ""))
		path := strings.TrimPrefix(p, "http://"+host)
		if kind == "page" && i == 0 {
			faulted = flaky(path, page)
		} else {
			h.Handle(path, page)
		}
	}
	return faulted, posts
}

func TestRetryEveryKindAndFault(t *testing.T) {
	for _, fc := range faultClasses() {
		t.Run(fc.name, func(t *testing.T) {
			w, clock := newEventWorld(t, nil)
			if fc.name == "timeout" {
				w.rewire(fetch.Timeouts{Total: 300 * time.Millisecond})
			}
			ctx := context.Background()
			faulted := map[string]string{}
			posts := map[string][]string{}
			for _, kind := range retryKinds {
				host := kind + ".example"
				faulted[host], posts[host] = retryBlog(w.web, host, kind, fc.fault)
				if _, _, err := w.db.AddSource(ctx, "http://"+host+"/", clock.Now()); err != nil {
					t.Fatal(err)
				}
			}
			// Rounds an hour apart until everything is stored (the first
			// retry is due in the same run; later ones a round later).
			for round := 0; round < 3; round++ {
				if err := w.c.Once(ctx); err != nil {
					t.Fatal(err)
				}
				clock.Advance(time.Hour)
			}
			w.clean()
			for _, kind := range retryKinds {
				host := kind + ".example"
				var asks []simweb.Request
				for _, r := range w.web.RequestsTo(host) {
					if r.URI == faulted[host] {
						asks = append(asks, r)
					}
				}
				if len(asks) != 2 {
					t.Errorf("%s: %s asked %d times, want twice (the fault, then its retry)", kind, faulted[host], len(asks))
					continue
				}
				// robots.txt, which gates everything else of the site, is
				// asked again once the site's own wait allows (MIN_GAP,
				// widened by the back-off, Retry-After); every other item
				// waits for the schedule too.
				least := max(fc.asked, fetch.FirstRetry/2)
				if kind == "robots" {
					least = max(fc.asked, w.s.MinGap)
				}
				if wait := asks[1].Start.Sub(asks[0].End); wait < least {
					t.Errorf("%s: retried %v after the fault, want at least %v", kind, wait, least)
				}
				for _, u := range posts[host] {
					if p := w.post(u); p.State != model.PostIndexed || p.Attempts != 0 {
						t.Errorf("%s: %s is %s after %d tries (%s), want indexed", kind, u, p.State, p.Attempts, p.Error)
					}
				}
			}
		})
	}
}

// A DNS lookup that fails says "try later" too: the first request to the
// host (robots.txt) is asked again.
func TestRetryDNSFailure(t *testing.T) {
	w, clock := newEventWorld(t, nil)
	_, posts := retryBlog(w.web, "dns.example", "page", simweb.NewResource(htmlType, simweb.HTMLPage))
	w.web.FailDNS("dns.example", 1)
	ctx := context.Background()
	if _, _, err := w.db.AddSource(ctx, "http://dns.example/", clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	for _, u := range posts {
		if p := w.post(u); p.State != model.PostIndexed {
			t.Errorf("%s is %s (%s), want indexed", u, p.State, p.Error)
		}
	}
	w.clean()
}

// After RETRY_ATTEMPTS tries, each further apart than the one before, a
// failing item's failure is final, with its reason; an answer that is
// final from the start (404) is not retried at all.
func TestRetryBudget(t *testing.T) {
	w, clock := newEventWorld(t, nil)
	h := w.web.Host("down.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	h.Put("/feed", rssType, rss([]item{{h.URL("/broken"), "Broken", day0, false}, {h.URL("/gone"), "Gone", day0, false}}))
	h.Handle("/broken", simweb.Unavailable("1"))
	h.Handle("/gone", simweb.Status(http.StatusNotFound))
	ctx := context.Background()
	if _, _, err := w.db.AddSource(ctx, "http://down.example/", clock.Now()); err != nil {
		t.Fatal(err)
	}
	for range 5 * 24 { // five days of hourly rounds: past RETRY_WINDOW
		if err := w.c.Once(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
	}
	var tries []simweb.Request
	gone := 0
	for _, r := range w.web.RequestsTo("down.example") {
		switch r.URI {
		case "/broken":
			tries = append(tries, r)
		case "/gone":
			gone++
		}
	}
	if len(tries) != w.s.RetryAttempts {
		t.Fatalf("/broken asked %d times, want RETRY_ATTEMPTS = %d", len(tries), w.s.RetryAttempts)
	}
	for i := 2; i < len(tries); i++ {
		if a, b := tries[i-1].Start.Sub(tries[i-2].End), tries[i].Start.Sub(tries[i-1].End); b <= a {
			t.Errorf("try %d came %v after the one before, not later than the %v before that", i+1, b, a)
		}
	}
	if span := tries[len(tries)-1].Start.Sub(tries[0].Start); span > w.s.RetryWindow+24*time.Hour {
		t.Errorf("tries spread over %v, want about RETRY_WINDOW (%v)", span, w.s.RetryWindow)
	}
	if p := w.post(h.URL("/broken")); p.State != model.PostError || !strings.Contains(p.Error, "503") || p.Due {
		t.Errorf("/broken: state %s, error %q, due %v; want error with its reason, no longer owed", p.State, p.Error, p.Due)
	}
	if gone != 1 {
		t.Errorf("/gone (404, a final answer) asked %d times, want once", gone)
	}
	w.clean()
}

// Three days of hourly rounds over a web where 5% of all answers are
// transient faults (seeded): every post ever reachable ends up indexed,
// and no politeness rule is broken on the way.
func TestRetryThreeDaysOfChaos(t *testing.T) {
	w, clock := newEventWorld(t, func(s *config.Settings) { s.FeedSchedule = config.ScheduleFixed })
	posts := blogFarm(w.web, 8, 2, 4)
	w.web.Chaos(0.05, 7, simweb.TooMany("2"), simweb.Unavailable("5"), simweb.Status(http.StatusInternalServerError),
		simweb.Status(http.StatusBadGateway), simweb.Reset())
	ctx := context.Background()
	for s := range 8 {
		if _, _, err := w.db.AddSource(ctx, fmt.Sprintf("http://%s/", clusterHost(s)), clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 * 24 {
		if err := w.c.Once(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
	}
	faults := 0
	for _, r := range w.web.Requests() {
		if r.Status == 0 || r.Status >= 500 || r.Status == 429 {
			faults++
		}
	}
	if faults == 0 {
		t.Fatal("no fault struck: the test tests nothing")
	}
	missing := 0
	for u := range posts {
		if p := w.post(u); p.State != model.PostIndexed {
			missing++
			t.Errorf("%s is %s after %d tries (%s)", u, p.State, p.Attempts, p.Error)
		}
	}
	t.Logf("%d requests, %d transient faults, %d of %d posts not indexed", len(w.web.Requests()), faults, missing, len(posts))
	w.clean()
}

// A round in which requests were made and not one was answered (every
// name failing to resolve, as with no network) ends in ErrNothingReached,
// naming the reason, so that `run --once` can exit non-zero; a round with
// one answer does not.
func TestRoundNothingReached(t *testing.T) {
	w, clock := newEventWorld(t, nil)
	ctx := context.Background()
	for _, host := range []string{"a.example", "b.example"} {
		retryBlog(w.web, host, "page", simweb.NewResource(htmlType, simweb.HTMLPage))
		w.web.FailDNS(host, 1000)
		if _, _, err := w.db.AddSource(ctx, "http://"+host+"/", clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	err := w.c.Once(ctx)
	if !errors.Is(err, crawl.ErrNothingReached) || !strings.Contains(err.Error(), "DNS failure") {
		t.Fatalf("a round with no answer: %v", err)
	}

	w2, clock2 := newEventWorld(t, nil)
	retryBlog(w2.web, "up.example", "page", simweb.NewResource(htmlType, simweb.HTMLPage))
	retryBlog(w2.web, "down.example", "page", simweb.NewResource(htmlType, simweb.HTMLPage))
	w2.web.FailDNS("down.example", 1000)
	for _, host := range []string{"up.example", "down.example"} {
		if _, _, err := w2.db.AddSource(ctx, "http://"+host+"/", clock2.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w2.c.Once(ctx); errors.Is(err, crawl.ErrNothingReached) {
		t.Fatalf("one site answered, yet: %v", err)
	}
}
