package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// Several crawl processes on one SQLite file are one crawler: each is a
// worker of its own, taking sites through the database's checkouts, and a
// site's timing (its last request's end, its back-off, a Retry-After) goes
// with its checkout, so no gap is shortened by a second process or a
// restart. These checks see only what the sites saw.

const (
	agentUA    = "CorpusBot/1.0 (+https://corpus.blog/crawler)"
	agentToken = "CorpusBot"
)

// sharedWeb is a web of blogs for two processes to share: plain ones, one
// asking Crawl-delay: 1, and one whose second post answers 503 with
// Retry-After: 2 once. floors gives each site's least gap (MIN_GAP or its
// Crawl-delay), and retryAfter the URIs that ask for a wait.
type sharedWeb struct {
	web        *simweb.Web
	hosts      []string
	posts      []string
	floors     map[string]time.Duration
	retryAfter map[string]time.Duration // host+URI -> the wait its 503 asks
}

func newSharedWeb(t *testing.T, first, sites, posts int, minGap time.Duration) *sharedWeb {
	t.Helper()
	w := &sharedWeb{web: simweb.New(), floors: map[string]time.Duration{}, retryAfter: map[string]time.Duration{}}
	t.Cleanup(w.web.Close)
	for i := range sites {
		name := fmt.Sprintf("203.0.113.%d", first+i)
		h := w.web.Host(name)
		w.hosts = append(w.hosts, name)
		w.posts = append(w.posts, blog(h, posts)...)
		w.floors[name] = minGap
		switch i {
		case 0:
			h.Robots("User-agent: *\nCrawl-delay: 1\nAllow: /\n")
			w.floors[name] = max(minGap, time.Second)
		case 1:
			page := fmt.Sprintf(`<!doctype html><html><head><title>Post 2</title></head><body><article><h1>Post 2</h1><p>%s</p></article></body></html>`,
				strings.Repeat("Words of a real post, long enough to extract. ", 30))
			h.Handle("/posts/2/", simweb.Flaky(1, simweb.Unavailable("2"), simweb.NewResource("text/html; charset=utf-8", page)))
			w.retryAfter[name+"/posts/2/"] = 2 * time.Second
		}
	}
	return w
}

// check asserts, from the server side, that the web was crawled as by one
// polite crawler: no two requests in flight to a site, every gap at least
// the site's floor, every Retry-After honoured; and, when once (no process
// was stopped mid-request), no document read in full twice (a re-read is
// conditional) and every post page fetched once.
func (w *sharedWeb) check(t *testing.T, once bool) {
	t.Helper()
	v := w.web.Violations(agentUA, agentToken, func(site string) time.Duration { return w.floors[site] })
	for site, reqs := range simweb.BySite(w.web.Requests()) {
		for i, r := range reqs {
			wait, ok := w.retryAfter[r.Host+r.URI]
			if !ok || r.Status != http.StatusServiceUnavailable || i+1 == len(reqs) {
				continue
			}
			if next := reqs[i+1]; next.Start.Sub(r.End) < wait {
				v = append(v, fmt.Sprintf("%s: %s %s asked %v after a 503 with Retry-After %v", site, next.Host, next.URI, next.Start.Sub(r.End).Round(time.Millisecond), wait))
			}
		}
	}
	full := map[string]int{}
	for _, r := range w.web.Requests() {
		if !once {
			break
		}
		if r.Status == http.StatusOK {
			full[r.Host+r.URI]++
			if full[r.Host+r.URI] == 2 {
				v = append(v, fmt.Sprintf("%s%s read in full twice", r.Host, r.URI))
			}
		}
	}
	for _, p := range w.posts {
		if !once {
			break
		}
		if n := full[strings.TrimPrefix(p, "http://")]; n != 1 {
			v = append(v, fmt.Sprintf("post %s fetched %d times", p, n))
		}
	}
	if len(v) > 0 {
		t.Errorf("%d politeness violations:\n%s", len(v), strings.Join(v, "\n"))
	}
}

var sitesDone = regexp.MustCompile(`msg="round done" sites=(\d+)`)

// roundSites is the sites a `run --once` says its round finished.
func roundSites(stderr string) int {
	m := sitesDone.FindStringSubmatch(stderr)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Two `run --once` started together on one SQLite file (a cron job
// overlapping the last run) share the sites between them: both end with
// status 0, every post is indexed once, and the sites see one polite
// crawler.
func TestTwoRunsOnOneFileAreOneCrawler(t *testing.T) {
	t.Parallel()
	w := newSharedWeb(t, 61, 10, 6, 50*time.Millisecond)
	env := binarytest.NewEnv(t).Proxy(t, w.web).Set("CORPUSBOT_CONCURRENCY", "4")
	addSources(t, env, w.hosts...)

	var wg sync.WaitGroup
	var res [2]binarytest.Result
	for i := range res {
		wg.Go(func() { res[i] = env.Run(t, 3*time.Minute, "run", "--once") })
	}
	wg.Wait()
	for i, r := range res {
		if r.Code != 0 {
			t.Errorf("process %d: exit %d after %v; stderr:\n%s", i+1, r.Code, r.Took, r.Stderr)
		}
	}
	a, b := roundSites(res[0].Stderr), roundSites(res[1].Stderr)
	t.Logf("process 1: %d sites in %v; process 2: %d sites in %v; %d requests",
		a, res[0].Took.Round(time.Millisecond), b, res[1].Took.Round(time.Millisecond), len(w.web.Requests()))
	if a+b < len(w.hosts) {
		t.Errorf("the two processes finished %d+%d sites, want all %d", a, b, len(w.hosts))
	}
	w.check(t, true)
	wantIndexed(t, env, w.posts)
}

// A `run` stopped with SIGINT and started again at once does not ask a
// site sooner than its gap allows: the new process takes up each site's
// last request's end from the old one's checkouts (here MIN_GAP 1 s, and
// a site asking Crawl-delay: 1, as both are stopped mid-catalogue).
func TestRestartHoldsEveryGap(t *testing.T) {
	t.Parallel()
	w := newSharedWeb(t, 71, 3, 12, time.Second)
	env := binarytest.NewEnv(t).Proxy(t, w.web).Set("CORPUSBOT_MIN_GAP", "1s")
	addSources(t, env, w.hosts...)
	for round := range 2 {
		stop := env.Start(t, "run")
		deadline := time.Now().Add(30 * time.Second)
		for len(w.web.Requests()) < 10*(round+1) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if r := stop(10 * time.Second); r.Code != 0 {
			t.Fatalf("run stopped with exit %d; stderr:\n%s", r.Code, r.Stderr)
		}
	}
	r := env.Run(t, 3*time.Minute, "run", "--once")
	if r.Code != 0 {
		t.Fatalf("run --once after two restarts: exit %d; stderr:\n%s", r.Code, r.Stderr)
	}
	t.Logf("%d requests over two stops and a last run", len(w.web.Requests()))
	w.check(t, false)
	wantIndexed(t, env, w.posts)
}
