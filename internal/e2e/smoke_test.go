package e2e

import (
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestBinaryCrawlsThroughProxy: the binary, its guard on, crawls a blog
// through a loopback proxy and exports every post as indexed.
func TestBinaryCrawlsThroughProxy(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	urls := blog(web.Host("203.0.113.20"), 3)
	env := binarytest.NewEnv(t).Proxy(t, web)
	if r := env.Run(t, time.Minute, "sources", "add", "http://203.0.113.20/"); r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	wantIndexed(t, env, urls)
	if v := web.Violations("CorpusBot/1.0 (+https://corpus.blog/crawler)", "CorpusBot", func(string) time.Duration { return 50 * time.Millisecond }); len(v) > 0 {
		t.Errorf("politeness violations: %v", v)
	}
}
