package main

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/simweb"
)

// simCrawl is the binary's own wiring (app.OpenStore, app.NewCrawl) over a
// simulated web on its clock, into the database s names: what `run --once`
// does, in process, so that a test can then drive the CLI over the result.
type simCrawl struct {
	t     *testing.T
	s     config.Settings
	web   *simweb.Web
	clock *simweb.Clock
	st    *app.DB
	wired *app.Crawl
	// finished and closed: finish and close have run.
	finished, closed bool
}

// newSimCrawl opens s.DB and wires the crawl to web; tune, when set,
// changes the crawl's options (metrics, say). Closed at the test's end
// unless close is called first.
func newSimCrawl(t *testing.T, web *simweb.Web, clock *simweb.Clock, s config.Settings, tune func(*app.Options)) *simCrawl {
	t.Helper()
	st, err := app.OpenStore(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	// The stepping clock moves for every site's sleep at once, so it
	// cannot time a response: no response counts as slow.
	o := app.Options{Settings: s, Clock: clock, SlowAfter: 1000 * time.Hour,
		Network: app.Network{Resolver: web.Resolver(), Dial: web.Dial, Proxy: fetch.NoProxy, TLS: web.ClientTLS()}}
	if tune != nil {
		tune(&o)
	}
	wired, err := app.NewCrawl(st, o)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	c := &simCrawl{t: t, s: s, web: web, clock: clock, st: st, wired: wired}
	t.Cleanup(c.close)
	return c
}

// add adds sources by homepage URL.
func (c *simCrawl) add(urls ...string) map[string]int64 {
	c.t.Helper()
	ids := map[string]int64{}
	for _, u := range urls {
		src, _, err := c.st.AddSource(context.Background(), u, c.clock.Now())
		if err != nil {
			c.t.Fatal(err)
		}
		ids[u] = src.ID
	}
	return ids
}

// once runs one round, which must succeed.
func (c *simCrawl) once() {
	c.t.Helper()
	if err := c.wired.Crawler.Once(context.Background()); err != nil {
		c.t.Fatal(err)
	}
}

// polite fails the test for every politeness violation the simulated
// servers saw.
func (c *simCrawl) polite() {
	c.t.Helper()
	for _, v := range c.web.Violations(c.s.UserAgent, c.s.ProductToken(), func(string) time.Duration { return c.s.MinGap }) {
		c.t.Error(v)
	}
}

// finish stores the request log's last records, leaving the database
// open; twice is harmless.
func (c *simCrawl) finish() {
	if !c.finished {
		c.finished = true
		c.wired.Close()
	}
}

// close finishes the crawl and closes the database, so that a command can
// open it; twice is harmless.
func (c *simCrawl) close() {
	c.finish()
	if !c.closed {
		c.closed = true
		c.st.Close()
	}
}
