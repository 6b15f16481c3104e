package demo

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/simweb"
)

// TestDemoTwoDays runs the demo's population (at a third of its size, so
// that it stays quick under the race detector) for two simulated days and
// checks from the servers' side that the real crawler was polite and
// fetched nothing disallowed, and that on day 2 it cost the sites a small
// fraction of what the naive crawler did.
func TestDemoTwoDays(t *testing.T) {
	ctx := context.Background()
	rep, err := Run(ctx, Options{DB: filepath.Join(fastDir(t), "demo.db"), Days: 2, Specs: DemoSpecs(0.34),
		Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())

	for _, v := range rep.Violations {
		t.Errorf("violation: %s", v) // includes any disallowed URL requested
	}
	d1, d2 := rep.Days[0], rep.Days[1]
	for _, d := range rep.Days {
		if d.BotDisallowedRequested != 0 {
			t.Errorf("day %d: %d requests for URLs robots.txt disallows", d.N, d.BotDisallowedRequested)
		}
	}
	if d2.Changed == 0 {
		t.Fatal("day 2 changed nothing: the population does not move")
	}
	if d1.BotSeen < d1.Changed*8/10 {
		t.Errorf("day 1: corpusbot picked up %d of %d allowed posts", d1.BotSeen, d1.Changed)
	}
	if d2.BotPerPost() > d2.NaivePerPost()/5 {
		t.Errorf("day 2: corpusbot %.2f requests per new-or-modified post, naive %.2f: not far below",
			d2.BotPerPost(), d2.NaivePerPost())
	}
	if d2.Bot.Total.NotModified == 0 {
		t.Error("day 2: no request answered 304")
	}
	if d2.Bot.ByKind[KindHome].Requests != 0 || d2.Bot.ByKind[KindCatalogue].Requests != 0 {
		t.Errorf("day 2: homepages or catalogues re-read: %+v", d2.Bot.ByKind)
	}
	for _, want := range []string{"requests per new-or-modified post", "fewer requests", "0 violations",
		"on the refusal list", "robots.txt unreachable", "robots.txt disallows CorpusBot", "shell", "noindex"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestDemoNaiveObeysRobots holds the baseline to robots.txt as well:
// the comparison is between two crawlers allowed the same URLs.
func TestDemoNaiveObeysRobots(t *testing.T) {
	ctx := context.Background()
	specs := DemoSpecs(0.2)
	pop := NewPopulation(specs, 7)
	web := newTestWeb(t)
	pop.Serve(web)
	if _, err := NewNaive(web).Crawl(ctx, pop.Homepages()); err != nil {
		t.Fatal(err)
	}
	for _, v := range web.Violations(NaiveUserAgent, agentToken, nil) {
		if strings.Contains(v, "disallowed") || strings.Contains(v, "not /robots.txt") {
			t.Errorf("naive: %s", v)
		}
	}
}

// fastDir is a temporary directory on tmpfs when the machine has one: the
// crawl's cost in wall time is mostly SQLite's fsyncs (synchronous=FULL),
// which say nothing about what the test checks.
func fastDir(t testing.TB) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "corpusbot-demo-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

func newTestWeb(t *testing.T) *simweb.Web {
	t.Helper()
	web := simweb.New()
	t.Cleanup(web.Close)
	return web
}
