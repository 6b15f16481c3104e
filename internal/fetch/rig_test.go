package fetch_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// rig is a fetcher wired to a simulated web, on simulated time unless the
// test asks for the wall clock. The private-address guard is on.
type rig struct {
	t     testing.TB
	web   *simweb.Web
	f     *fetch.Fetcher
	clock *simweb.Clock // nil on the wall clock
	s     config.Settings
	mu    sync.Mutex
	recs  []model.RequestRecord
}

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newRig(t testing.TB, wall bool, tweak func(*config.Settings, *fetch.Options)) *rig {
	t.Helper()
	r := &rig{t: t, s: config.Defaults()}
	var clock fetch.Clock = fetch.RealClock{}
	var webOpts []simweb.Option
	if !wall {
		r.clock = simweb.NewClock(start)
		clock = r.clock
		webOpts = append(webOpts, simweb.WithClock(r.clock.Now))
	}
	r.web = simweb.New(webOpts...)
	t.Cleanup(r.web.Close)
	o := fetch.Options{
		Clock:    clock,
		Resolver: r.web.Resolver(),
		Dial:     r.web.Dial,
		Proxy:    fetch.NoProxy,
		TLS:      r.web.ClientTLS(),
		Logger:   discard,
		Observe: func(rec model.RequestRecord) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.recs = append(r.recs, rec)
		},
		Timeouts: fetch.Timeouts{Total: 5 * time.Second},
	}
	if tweak != nil {
		tweak(&r.s, &o)
	}
	o.Settings = r.s
	f, err := fetch.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.CloseIdleConnections)
	r.f = f
	return r
}

func (r *rig) get(u string, p model.Purpose) fetch.Result {
	r.t.Helper()
	return r.f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: p})
}

func (r *rig) records() []model.RequestRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]model.RequestRecord(nil), r.recs...)
}

// clean fails the test on any politeness violation seen from the server,
// with gap as the least gap expected on every site.
func (r *rig) clean(gap time.Duration) {
	r.t.Helper()
	for _, v := range r.web.Violations(r.s.UserAgent, r.s.ProductToken(), func(string) time.Duration { return gap }) {
		r.t.Error(v)
	}
}

// uris lists the request URIs a host saw, in order.
func (r *rig) uris(host string) []string {
	var out []string
	for _, q := range r.web.RequestsTo(host) {
		out = append(out, q.URI)
	}
	return out
}

func want(t testing.TB, res fetch.Result, o model.Outcome) {
	t.Helper()
	if res.Outcome != o {
		t.Fatalf("outcome %s (status %d, err %v), want %s", res.Outcome, res.Status, res.Err, o)
	}
}
