package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// The hosts of the waiting checks: a healthy blog, one whose pages all
// answer 503 (no Retry-After: its back-off doubles), one whose pages
// answer 503 with Retry-After: 86400.
const (
	healthyHost = "203.0.113.41"
	failingHost = "203.0.113.42"
	dayWaitHost = "203.0.113.43"
)

// troubledWeb serves the three blogs.
func troubledWeb(t *testing.T) (*simweb.Web, []string) {
	t.Helper()
	web := simweb.New()
	t.Cleanup(web.Close)
	healthy := blog(web.Host(healthyHost), 3)
	failing := web.Host(failingHost)
	for i := range blog(failing, 30) {
		failing.Handle(fmt.Sprintf("/posts/%d/", i+1), simweb.Status(http.StatusServiceUnavailable))
	}
	dayWait := web.Host(dayWaitHost)
	for i := range blog(dayWait, 10) {
		dayWait.Handle(fmt.Sprintf("/posts/%d/", i+1), simweb.Unavailable("86400"))
	}
	return web, healthy
}

// requestsTo counts the requests web saw for host.
func requestsTo(web *simweb.Web, host string) int { return len(web.RequestsTo(host)) }

// A site answering 503 to every page and one asking a day's wait do not
// hold up `run --once`: it ends within two minutes with the healthy site
// indexed, names the sites it left waiting, and a second run at once asks
// the day-wait site nothing (its wait survived the process).
func TestRunOnceEndsWhateverSitesAnswer(t *testing.T) {
	t.Parallel()
	web, healthy := troubledWeb(t)
	env := binarytest.NewEnv(t).Proxy(t, web)
	addSources(t, env, healthyHost, failingHost, dayWaitHost)

	r := env.Run(t, 3*time.Minute, "run", "--once")
	if r.Code == -1 {
		t.Fatalf("run --once did not end within 3 minutes; stderr:\n%s", r.Stderr)
	}
	if r.Took > 2*time.Minute {
		t.Errorf("run --once took %v, want under 2 minutes", r.Took)
	}
	t.Logf("run --once: exit %d after %v; requests: healthy %d, failing %d, day-wait %d",
		r.Code, r.Took.Round(time.Second), requestsTo(web, healthyHost), requestsTo(web, failingHost), requestsTo(web, dayWaitHost))
	if !strings.Contains(r.Stderr, "site left waiting") || !strings.Contains(r.Stderr, dayWaitHost) {
		t.Errorf("the run does not say it left %s waiting:\n%s", dayWaitHost, r.Stderr)
	}
	pagesAsked := 0
	for _, q := range web.RequestsTo(dayWaitHost) {
		if strings.HasPrefix(q.URI, "/posts/") {
			pagesAsked++
		}
	}
	if pagesAsked != 1 {
		t.Errorf("%d pages of the day-wait site asked, want 1 (then it said Retry-After: 86400)", pagesAsked)
	}
	out := env.Run(t, time.Minute, "export")
	for _, u := range healthy {
		if !strings.Contains(out.Stdout, `"url":"`+u+`","source":"http://`+healthyHost+`/","title":"Post`) ||
			!strings.Contains(out.Stdout, `"url":"`+u+`"`) {
			t.Errorf("healthy post %s not exported", u)
		}
	}
	for _, line := range binarytest.Lines(out.Stdout) {
		if strings.Contains(line, healthyHost) && !strings.Contains(line, `"state":"indexed"`) {
			t.Errorf("healthy post not indexed: %s", line)
		}
		if strings.Contains(line, dayWaitHost) && !strings.Contains(line, `"state":"pending"`) {
			t.Errorf("a post of the day-wait site is not pending (its tries untouched): %s", line)
		}
	}
	if v := web.Violations("CorpusBot/1.0 (+https://corpus.blog/crawler)", "CorpusBot", func(string) time.Duration { return 50 * time.Millisecond }); len(v) > 0 {
		t.Errorf("politeness violations: %v", v)
	}

	before := requestsTo(web, dayWaitHost)
	r2 := env.Run(t, 3*time.Minute, "run", "--once")
	if r2.Code == -1 {
		t.Fatalf("second run --once did not end; stderr:\n%s", r2.Stderr)
	}
	if n := requestsTo(web, dayWaitHost) - before; n != 0 {
		t.Errorf("the second run asked the day-wait site %d requests, want none (Retry-After: 86400 said a day)", n)
	}
	t.Logf("second run --once: exit %d after %v", r2.Code, r2.Took.Round(time.Second))
}

// Under `run`, the healthy feed is read on every interval while a site
// answering 503 waits: rounds have no barrier.
func TestRunReadsHealthyFeedWhileSiteWaits(t *testing.T) {
	t.Parallel()
	web, _ := troubledWeb(t)
	env := binarytest.NewEnv(t).Proxy(t, web).
		Set("CORPUSBOT_RUN_INTERVAL", "3s").
		Set("CORPUSBOT_FEED_INTERVAL", "0s").
		Set("CORPUSBOT_FEED_SCHEDULE", "fixed")
	addSources(t, env, healthyHost, failingHost)
	stop := env.Start(t, "run")
	time.Sleep(25 * time.Second)
	r := stop(10 * time.Second)
	if r.Code == -1 {
		t.Errorf("run did not stop within 10 s of SIGINT")
	}
	reads := 0
	for _, q := range web.RequestsTo(healthyHost) {
		if q.URI == "/feed.xml" {
			reads++
		}
	}
	// 25 s at a round every 3 s: 8 rounds; the first read is discovery's.
	if reads < 6 {
		t.Errorf("the healthy feed was read %d times in 25 s with RUN_INTERVAL=3s, want at least 6; stderr:\n%s", reads, r.Stderr)
	}
	t.Logf("healthy feed read %d times; failing site asked %d requests", reads, requestsTo(web, failingHost))
}

// A site whose robots.txt keeps failing, with ROBOTS_GUESS_TTL and
// RETRY_WINDOW compressed under two minutes, used to restart its tries
// inside the run for ever; `run --once` now ends, and asks nothing of the
// site's pages (robots.txt was never read).
func TestRunOnceEndsWhileRobotsKeepsFailing(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	t.Cleanup(web.Close)
	healthy := blog(web.Host("203.0.113.44"), 2)
	broken := web.Host("203.0.113.45")
	blog(broken, 5)
	broken.Handle("/robots.txt", simweb.Status(http.StatusServiceUnavailable))
	env := binarytest.NewEnv(t).Proxy(t, web).
		Set("CORPUSBOT_ROBOTS_GUESS_TTL", "10s").
		Set("CORPUSBOT_RETRY_WINDOW", "1m").
		Set("CORPUSBOT_FEED_INTERVAL", "0s").
		Set("CORPUSBOT_SITEMAP_INTERVAL", "0s")
	addSources(t, env, "203.0.113.44", "203.0.113.45")
	r := env.Run(t, 4*time.Minute, "run", "--once")
	if r.Code == -1 {
		t.Fatalf("run --once did not end within 4 minutes; stderr:\n%s", r.Stderr)
	}
	if r.Took > 150*time.Second {
		t.Errorf("run --once took %v", r.Took)
	}
	robots := 0
	for _, q := range web.RequestsTo("203.0.113.45") {
		if q.URI != "/robots.txt" {
			t.Errorf("%s asked of a site whose robots.txt never answered", q.URI)
		}
		robots++
	}
	t.Logf("run --once: exit %d after %v; robots.txt of the broken site asked %d times", r.Code, r.Took.Round(time.Second), robots)
	out := env.Run(t, time.Minute, "export")
	for _, u := range healthy {
		if !strings.Contains(out.Stdout, `"url":"`+u+`"`) {
			t.Errorf("healthy post %s not exported", u)
		}
	}
}
