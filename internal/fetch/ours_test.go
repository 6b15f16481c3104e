package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// refusedByGuard fails the test unless res is the private-address guard's
// refusal: an error that is not transient and names the guard.
func refusedByGuard(t testing.TB, res fetch.Result) {
	t.Helper()
	if res.Outcome != model.OutcomeError || !fetch.GuardRefused(res.Err) {
		t.Fatalf("outcome %s (err %v), want the guard's refusal", res.Outcome, res.Err)
	}
	if res.Transient() {
		t.Errorf("the guard's refusal is transient: %v", res.Err)
	}
	if got := res.Reason(); got != "private address refused" {
		t.Errorf("reason %q", got)
	}
}

// A guard refusal is the crawler's decision, not the site's answer: no
// robots.txt entry, no refusal record, and once ALLOW_PRIVATE is on, the
// same caches let the site be read at once, with no stored expiry to wait
// out (issue 18).
func TestGuardRefusalStoresNothing(t *testing.T) {
	cache, refusals := newRobotsStore(), newRefusalStore()
	withCaches := func(allow bool) func(*config.Settings, *fetch.Options) {
		return func(s *config.Settings, o *fetch.Options) {
			s.AllowPrivate = allow
			o.Robots, o.Refusals = cache, refusals
		}
	}
	r := newRig(t, false, withCaches(false))
	h := r.web.Host("intranet.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/feed", "application/rss+xml", "<rss><channel></channel></rss>")
	r.web.Resolve("intranet.example", netip.MustParseAddr("10.0.0.7"))
	for range 2 { // asked again: still the guard's, still nothing stored
		refusedByGuard(t, r.get("http://intranet.example/feed", model.PurposeFeed))
		if e, ok := cache.stored("http://intranet.example:80"); ok {
			t.Fatalf("robots entry stored for a guard refusal: %+v", e)
		}
		if st := refusals.stored("intranet.example"); st != (model.RefusalState{}) {
			t.Fatalf("refusal state stored for a guard refusal: %+v", st)
		}
	}
	if n := r.web.Dials(""); n != 0 {
		t.Fatalf("%d dials", n)
	}
	// The robots.txt API says the same, and so does a waiter of the read.
	if _, err := r.f.Robots(context.Background(), "http://intranet.example/x"); !fetch.GuardRefused(err) {
		t.Errorf("Robots: %v, want the guard's refusal", err)
	}

	a := newRig(t, false, withCaches(true))
	ha := a.web.Host("intranet.example")
	ha.Robots("User-agent: *\nAllow: /\n")
	ha.Put("/feed", "application/rss+xml", "<rss><channel></channel></rss>")
	want(t, a.get("http://intranet.example/feed", model.PurposeFeed), model.OutcomeFetched)
	if e, ok := cache.stored("http://intranet.example:80"); !ok || e.Verdict.State != robots.StateParsed {
		t.Errorf("after ALLOW_PRIVATE: %+v %v, want the file read", e, ok)
	}
}

// unreachableNet is a network of ours that is down: every dial finds no
// route, until up is set.
type unreachableNet struct {
	up   atomic.Bool
	dial fetch.DialFunc
	errs atomic.Int32
}

func (n *unreachableNet) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if n.up.Load() {
		return n.dial(ctx, network, address)
	}
	n.errs.Add(1)
	return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}
}

// failingResolver is a resolver of ours that fails (a timeout, a
// temporary failure) until up is set; notFound says "no such host"
// instead, an answer about the name.
type failingResolver struct {
	up       atomic.Bool
	notFound bool
	next     fetch.Resolver
}

func (r *failingResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if r.up.Load() {
		return r.next.LookupNetIP(ctx, network, host)
	}
	if r.notFound {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
}

// Our network down (no route, or a resolver failing for every name) is
// not the site's robots.txt being unreachable: no guess is cached for
// ROBOTS_GUESS_TTL, the request fails transiently (the retry schedule
// asks again), and once the network is back robots.txt is read at once.
func TestOurNetworkFailureCachesNoGuess(t *testing.T) {
	for _, tc := range []struct {
		name string
		down func(o *fetch.Options) (up func())
	}{
		{"no route", func(o *fetch.Options) func() {
			n := &unreachableNet{dial: o.Dial}
			o.Dial = n.Dial
			return func() { n.up.Store(true) }
		}},
		{"resolver failing", func(o *fetch.Options) func() {
			res := &failingResolver{next: o.Resolver}
			o.Resolver = res
			return func() { res.up.Store(true) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := newRobotsStore()
			var up func()
			// newRig has set the web's resolver and dialer before the
			// tweak: wrapped here.
			r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
				o.Robots = cache
				up = tc.down(o)
			})
			h := r.web.Host("blog.example")
			h.Robots("User-agent: *\nDisallow: /private/\n")
			h.Put("/feed", "application/rss+xml", "<rss><channel></channel></rss>")

			res := r.get("http://blog.example/feed", model.PurposeFeed)
			if res.Outcome != model.OutcomeError || !res.Transient() || fetch.GuardRefused(res.Err) {
				t.Fatalf("network down: %s %v (transient %v), want a transient error", res.Outcome, res.Err, res.Transient())
			}
			if !fetch.OurNetworkFailed(res.Err) {
				t.Errorf("not recognised as our network: %v", res.Err)
			}
			if e, ok := cache.stored("http://blog.example:80"); ok {
				t.Fatalf("robots guess cached for our own outage: %+v", e)
			}
			up()
			want(t, r.get("http://blog.example/feed", model.PurposeFeed), model.OutcomeFetched)
			if got := r.uris("blog.example"); len(got) != 2 || got[0] != "/robots.txt" {
				t.Errorf("after the outage: %v, want robots.txt then the feed", got)
			}
		})
	}
}

// A name that does not exist is the site's answer, not our outage: its
// robots.txt is unreachable under RFC 9309 and the guess is cached as
// before.
func TestNoSuchHostStaysTheSitesAnswer(t *testing.T) {
	cache := newRobotsStore()
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) {
		o.Robots = cache
		o.Resolver = &failingResolver{notFound: true}
	})
	res := r.get("http://gone.example/feed", model.PurposeFeed)
	if res.Outcome != model.OutcomeDisallowed || res.Robots != robots.StateUnreachable {
		t.Fatalf("%s %s %v, want held back on an unreachable robots.txt", res.Outcome, res.Robots, res.Err)
	}
	if e, ok := cache.stored("http://gone.example:80"); !ok || e.Verdict.State != robots.StateUnreachable {
		t.Errorf("entry %+v %v, want unreachable", e, ok)
	}
}

func TestGuardRefusedAndOurNetwork(t *testing.T) {
	private := fmt.Errorf("dial a:80 (10.0.0.1): %w", fetch.ErrPrivateAddress)
	noRoute := &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}
	refused := &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	temporary := &net.DNSError{Err: "i/o timeout", IsTimeout: true, IsTemporary: true}
	notFound := &net.DNSError{Err: "no such host", IsNotFound: true}
	wrap := func(err error) error { return fmt.Errorf("fetch http://a/: %w", err) }
	tests := []struct {
		name          string
		err           error
		guard, ourNet bool
	}{
		{"one private address", wrap(private), true, false},
		{"every address private", wrap(errors.Join(private, private)), true, false},
		{"private and a public one refusing", wrap(errors.Join(private, refused)), false, false},
		{"private and no route", wrap(errors.Join(private, noRoute)), false, true},
		{"no route", wrap(noRoute), false, true},
		{"no route and refused", wrap(errors.Join(noRoute, refused)), false, false},
		{"resolver timing out", wrap(temporary), false, true},
		{"no such host", wrap(notFound), false, false},
		{"connection refused", wrap(refused), false, false},
		{"nil", nil, false, false},
	}
	for _, tc := range tests {
		if got := fetch.GuardRefused(tc.err); got != tc.guard {
			t.Errorf("%s: GuardRefused %v", tc.name, got)
		}
		if got := fetch.OurNetworkFailed(tc.err); got != tc.ourNet {
			t.Errorf("%s: OurNetworkFailed %v", tc.name, got)
		}
		res := fetch.Result{Outcome: model.OutcomeError, Err: tc.err}
		if tc.err != nil && res.Transient() == tc.guard {
			t.Errorf("%s: transient %v", tc.name, res.Transient())
		}
	}
}
