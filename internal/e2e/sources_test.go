package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// Sources managed from the command line, through the binary only: four
// blogs crawled, listed as JSON lines and as OPML; one paused, one paused
// and resumed, one removed (posts kept), one purged (posts deleted). The
// next `run --once`, with every feed due again, asks the paused, removed
// and purged sites nothing and reads the resumed one again.
func TestSourcesListPauseRemove(t *testing.T) {
	t.Parallel()
	const (
		resumedHost = "203.0.113.61"
		pausedHost  = "203.0.113.62"
		removedHost = "203.0.113.63"
		purgedHost  = "203.0.113.64"
	)
	web := simweb.New()
	t.Cleanup(web.Close)
	posts := map[string][]string{}
	for _, h := range []string{resumedHost, pausedHost, removedHost, purgedHost} {
		posts[h] = blog(web.Host(h), 2)
	}
	env := binarytest.NewEnv(t).Proxy(t, web).
		Set("CORPUSBOT_FEED_INTERVAL", "0s").
		Set("CORPUSBOT_FEED_SCHEDULE", "fixed").
		Set("CORPUSBOT_SITEMAP_INTERVAL", "0s")
	addSources(t, env, resumedHost, pausedHost, removedHost, purgedHost)
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}

	// JSON lines (stdout is a pipe), one a source, its posts counted.
	r := env.Run(t, time.Minute, "sources", "list")
	lines := binarytest.Lines(r.Stdout)
	if r.Code != 0 || len(lines) != 4 {
		t.Fatalf("sources list: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	for _, l := range lines {
		var x struct {
			Source       string `json:"source"`
			State        string `json:"state"`
			PostsIndexed int    `json:"posts_indexed"`
			LastRead     string `json:"last_read"`
			NextDue      string `json:"next_due"`
			LastError    string `json:"last_error"`
		}
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatal(err)
		}
		if x.State != "active" || x.PostsIndexed != 2 || x.LastRead == "" || x.NextDue == "" || x.LastError != "" {
			t.Errorf("after a crawl: %s", l)
		}
	}
	r = env.Run(t, time.Minute, "sources", "list", "--opml")
	for _, h := range []string{resumedHost, pausedHost, removedHost, purgedHost} {
		if !strings.Contains(r.Stdout, `xmlUrl="http://`+h+`/feed.xml" htmlUrl="http://`+h+`/"`) {
			t.Errorf("OPML lacks %s with its feed:\n%s", h, r.Stdout)
		}
	}

	must := func(want string, args ...string) {
		t.Helper()
		r := env.Run(t, time.Minute, args...)
		if r.Code != 0 || r.Stdout != want {
			t.Errorf("%v: exit %d, stdout %q, want %q; stderr %s", args, r.Code, r.Stdout, want, r.Stderr)
		}
	}
	must("paused http://"+pausedHost+"/\npaused http://"+resumedHost+"/\n", "sources", "pause", pausedHost, "http://"+resumedHost+"/")
	must("resumed http://"+resumedHost+"/\n", "sources", "resume", resumedHost)
	must("removed http://"+removedHost+"/ (2 posts kept)\n", "sources", "remove", "http://"+removedHost+"/")
	must("removed http://"+purgedHost+"/ (2 posts deleted)\n", "sources", "remove", "--purge", purgedHost)
	if r := env.Run(t, time.Minute, "sources", "remove", "nothing.example", purgedHost); r.Code == 0 ||
		!strings.HasSuffix(r.Stderr, "\ncorpusbot sources remove: no source of nothing.example\n") {
		t.Errorf("removing what is not there: exit %d, stderr %q", r.Code, r.Stderr)
	}

	before := map[string]int{}
	for _, h := range []string{resumedHost, pausedHost, removedHost, purgedHost} {
		before[h] = requestsTo(web, h)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("second run --once: %d %s", r.Code, r.Stderr)
	}
	for _, h := range []string{pausedHost, removedHost, purgedHost} {
		if n := requestsTo(web, h) - before[h]; n != 0 {
			t.Errorf("%s was asked %d requests after it was paused or removed, want 0", h, n)
		}
	}
	if n := requestsTo(web, resumedHost) - before[resumedHost]; n == 0 {
		t.Errorf("the resumed site %s was not read again", resumedHost)
	}

	// The removed source's posts are exported as before; the purged one's
	// are gone; the list says which is which.
	out := env.Run(t, time.Minute, "export").Stdout
	for _, u := range posts[removedHost] {
		if !strings.Contains(out, `"url":"`+u+`"`) {
			t.Errorf("a removed source's post %s is not exported", u)
		}
	}
	if strings.Contains(out, purgedHost) {
		t.Errorf("a purged source's posts are still exported:\n%s", out)
	}
	list := env.Run(t, time.Minute, "sources", "list").Stdout
	for h, state := range map[string]string{resumedHost: "active", pausedHost: "paused", removedHost: "removed"} {
		if !strings.Contains(list, `{"source":"http://`+h+`/","state":"`+state+`"`) {
			t.Errorf("%s is not listed %s:\n%s", h, state, list)
		}
	}
	if strings.Contains(list, purgedHost) {
		t.Errorf("a purged source is still listed:\n%s", list)
	}
}
