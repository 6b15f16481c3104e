package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// attempt is one request the fetcher is about to make, or to decline: one
// URL (each redirect hop and each robots.txt read is an attempt of its
// own) and everything the rules, the lease, the exchange and the record
// need of it, derived once, where the attempt is made (newAttempt, and
// from one attempt the next: redirected, robotsTxt). Every request goes
// through send with one; nothing downstream derives a site or an origin
// from a URL again.
type attempt struct {
	url     *url.URL // without user information or fragment
	shown   string   // url as it is sent, recorded, logged and returned
	site    string   // model.Site: the lease, the refusal list, the opt-out, the back-off
	origin  string   // model.OriginOf: the robots.txt cache key
	purpose model.Purpose
	// claim: a read the site's owner asked for (the claim file, and the
	// robots.txt read on its way), sent even to an opted-out site.
	claim bool
	// The caller's validators, sent as If-None-Match and
	// If-Modified-Since, and kept when the answer is a 304.
	etag, lastModified string
	form               url.Values                            // the body of a POST (model.PurposeWebSub); nil for a GET
	stream             func(finalURL string, body io.Reader) // takes a GET's body instead of Result.Body (Request.Stream)

	// Learnt on the way. Before the lease: how the origin's robots.txt
	// stood and the Crawl-delay it asks. Under the lease: how long the
	// lease kept the attempt waiting, and the site's refusal state, which
	// only the lease's holder changes (so the answer updates it without
	// reading it again).
	robots     robots.State
	crawlDelay time.Duration
	waited     time.Duration
	refusal    model.RefusalState
}

// newAttempt is the attempt for req, at u (req.URL parsed by parseURL).
// A stream and validators belong to a GET of a resource the caller keeps:
// robots.txt reads keep the cache's own, and a POST has neither.
func newAttempt(u *url.URL, req Request) attempt {
	a := attempt{purpose: req.Purpose, claim: req.Purpose == model.PurposeClaim, form: req.Form}
	if req.Purpose != model.PurposeRobots && req.Form == nil {
		a.etag, a.lastModified, a.stream = req.ETag, req.LastModified, req.Stream
	}
	return a.at(u)
}

// at is a moved to u: the one place an attempt's URL, site and origin are
// set, so that they always agree. What was learnt of the old URL is
// dropped. A URL with user information is taken without it: net/http
// would send it as Authorization, and the crawler sends no credentials.
func (a attempt) at(u *url.URL) attempt {
	if u.User != nil {
		bare := *u
		bare.User = nil
		u = &bare
	}
	a.url, a.shown = u, u.String()
	a.site, a.origin = model.Site(u.Host), model.OriginOf(u)
	a.robots, a.crawlDelay, a.waited, a.refusal = "", 0, 0, model.RefusalState{}
	return a
}

// redirected is the next hop of a, to a redirect's target: the same
// request (purpose, validators, stream) at another URL, checked and
// leased on its own.
func (a attempt) redirected(to *url.URL) attempt { return a.at(to) }

// robotsTxt is the read of the robots.txt of a's origin that a waits on:
// same site and origin, on behalf of the same owner's claim if a is one.
func (a attempt) robotsTxt() attempt {
	u := robotsURL(a.url)
	return attempt{url: u, shown: u.String(), site: a.site, origin: a.origin, purpose: model.PurposeRobots, claim: a.claim}
}

// obeysRobots reports whether robots.txt decides if a is sent. Not for
// robots.txt itself, nor for a POST to a WebSub hub (see post).
func (a *attempt) obeysRobots() bool {
	return a.purpose != model.PurposeRobots && a.purpose != model.PurposeWebSub
}

// listable reports whether the 403 refusal list applies to a: its answer
// may put the site on the list or take it off, and a listed site is not
// asked. robots.txt is not a page: it does neither.
func (a *attempt) listable() bool { return a.purpose != model.PurposeRobots }

// gap is the least pause a asks between the end of the site's last
// request and its own start, catalogue delay aside (floor): MIN_GAP, or
// the origin's Crawl-delay if longer. The back-off widens it.
func (f *Fetcher) gap(a *attempt) time.Duration { return max(f.s.MinGap, a.crawlDelay) }

// floor is the pause a asks of the lease: its gap, and a catalogue page's
// own delay.
func (f *Fetcher) floor(a *attempt) time.Duration {
	if a.purpose == model.PurposeCatalogue {
		return max(f.gap(a), f.s.CataloguePageDelay)
	}
	return f.gap(a)
}

// stage is how far an attempt has come when its rules are checked.
type stage int

const (
	// beforeLease: nothing has been waited for. An attempt declined here
	// costs the site no turn and the caller no wait.
	beforeLease stage = iota
	// underLease: the site's lease is held and the request is about to be
	// sent. What changed while it waited is seen here.
	underLease
)

// check applies to a, at stage s, the rules that keep a request from
// being sent: the one place they are written. It returns the exchange of
// a declined attempt and true, or false when a may go on.
//
//   - the store's health, first, at both stages (storegate.go): no request
//     is sent that the store cannot record; the attempt fails unrecorded.
//   - robots.txt, before the lease: the origin's rules for the URL (the
//     file read first if its entry is missing or stale; a read that gives
//     no entry to obey fails the attempt unrecorded, the read having its
//     own record). It sets a.robots and a.crawlDelay.
//   - the 403 refusal list, before the lease (a listed site costs no wait)
//     and again under it: of several requests queued on a site due for its
//     recheck, only the first is sent.
//   - the owner's opt-out, under the lease, as late as can be: it holds
//     from the moment it is stored, even for work already handed out.
//     (robotsEntry also begins no robots.txt read that it would decline.)
//     A check that fails sends nothing and fails unrecorded too.
func (f *Fetcher) check(ctx context.Context, a *attempt, s stage) (exchange, bool) {
	if err := f.storeDown(a); err != nil {
		ex := f.declined(model.OutcomeError, err)
		ex.unrecorded = true // nothing could record it
		return ex, true
	}
	if s == beforeLease && a.obeysRobots() {
		entry, err := f.robotsEntry(ctx, a)
		if err != nil {
			outcome := model.OutcomeError
			if _, ok := WaitUntil(err); ok {
				outcome = model.OutcomeWaiting
			}
			ex := f.declined(outcome, fmt.Errorf("fetch %s: %w", a.shown, err))
			ex.unrecorded = true
			return ex, true
		}
		a.robots = entry.Verdict.State
		rules := entry.Verdict.For(f.agent)
		if d := rules.Decide(a.url.RequestURI()); !d.Allowed {
			return f.declined(model.OutcomeDisallowed, &DisallowedError{URL: a.shown, State: entry.Verdict.State, Rule: d.Rule()}), true
		}
		a.crawlDelay, _ = rules.CrawlDelay()
	}
	if a.listable() {
		st := f.refusals.Get(ctx, a.site)
		if s == underLease {
			a.refusal = st
		}
		if !mayAsk(st, f.clock.Now(), f.s.RefusalRecheck) {
			return f.declined(model.OutcomeRefused, fmt.Errorf("fetch %s: %w", a.shown, ErrRefused)), true
		}
	}
	if s == underLease {
		switch err := f.withheld(ctx, a); {
		case errors.Is(err, ErrStoreDown):
			ex := f.declined(model.OutcomeError, fmt.Errorf("fetch %s: %w", a.shown, err))
			ex.unrecorded = true
			return ex, true
		case err != nil:
			return f.declined(model.OutcomeOptedOut, fmt.Errorf("fetch %s: %w", a.shown, err)), true
		}
	}
	return exchange{}, false
}

// declined is the exchange of an attempt that was not sent: no connection
// made, nothing asked of the site, so nothing of it to learn (ours).
func (f *Fetcher) declined(outcome model.Outcome, err error) exchange {
	now := f.clock.Now()
	return exchange{outcome: outcome, err: err, ours: true, start: now, end: now}
}

// send makes attempt a: every request of the fetcher goes through here
// (a page, feed, sitemap or catalogue page, each redirect hop, robots.txt,
// a claim file, a POST to a hub). It checks a, takes the site's lease,
// checks a again, sends it, updates the site's back-off and refusal state,
// gives the lease back, records what became of a (the one place a Record
// is made) and then hands a body read whole to the archive.
func (f *Fetcher) send(ctx context.Context, a *attempt) exchange {
	ex := f.leased(ctx, a)
	if !ex.unrecorded {
		f.emit(ctx, a, ex)
	}
	if ex.archived != nil {
		f.archive(ctx, *ex.archived)
	}
	return ex
}

// stopped is the exchange of an attempt not sent because its caller
// stopped (ctx ended) while it waited for the site's lease, unrecorded as
// any attempt the caller gave up on; false while ctx lives.
func (f *Fetcher) stopped(ctx context.Context, a *attempt) (exchange, bool) {
	if err := ctx.Err(); err != nil {
		ex := f.declined(model.OutcomeError, fmt.Errorf("fetch %s: %w", a.shown, err))
		ex.unrecorded = true
		return ex, true
	}
	return exchange{}, false
}

// leased is send up to the record: a checked, the lease taken, a checked
// again and sent, the site's state updated and the lease given back.
func (f *Fetcher) leased(ctx context.Context, a *attempt) exchange {
	if ex, declined := f.check(ctx, a, beforeLease); declined {
		return ex
	}
	f.restoreWaits(ctx)
	asked := f.clock.Now()
	slot, err := f.lease.Acquire(ctx, a.site, f.floor(a))
	if until, ok := WaitUntil(err); ok {
		f.log.Debug("site waits beyond the horizon: left for later", "site", a.site, "url", a.shown, "until", until)
		f.deferred(ctx, a.site, until)
		return f.declined(model.OutcomeWaiting, fmt.Errorf("fetch %s: %w", a.shown, err))
	}
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			// A lease kept in the store (a cluster's) that the store could
			// not grant: the store's failure, not the site's.
			err = fmt.Errorf("%w: %w", ErrStoreDown, err)
		}
		ex := f.declined(model.OutcomeError, fmt.Errorf("fetch %s: lease %s: %w", a.shown, a.site, err))
		ex.unrecorded = true
		return ex
	}
	a.waited = f.clock.Now().Sub(asked)
	if ex, stopped := f.stopped(ctx, a); stopped {
		slot.Abandon()
		return ex
	}
	if ex, declined := f.check(ctx, a, underLease); declined {
		slot.Abandon()
		return ex
	}
	// The exchange outlives a stop once begun (stop.go): none begins after.
	if ex, stopped := f.stopped(ctx, a); stopped {
		slot.Abandon()
		return ex
	}
	underway := f.conns.begin(a.site)
	ex := f.exchange(withSite(ctx, a.site), a)
	underway()
	now := f.clock.Now()
	b := f.backoffs.get(a.site, now)
	if !ex.ours { // our own failure (ours.go) says nothing about the site
		b = b.update(answer{
			status: ex.status, failed: ex.failed(), header: ex.header, duration: ex.end.Sub(ex.start) - ex.bodyWait, end: ex.end,
		}, f.s.MinGap, f.slowAfter, f.slowFactor)
		f.backoffs.put(a.site, b, now)
	}
	next := b.next(ex.end, f.gap(a))
	if !ex.ours {
		f.saveWait(ctx, a.site, b, next, now)
		if a.listable() {
			if after := refusalAfter(a.refusal, ex.status, ex.end); after != a.refusal {
				// The answer was had: its standing is kept, stop or not.
				pctx, cancel := Outlive(ctx, StopGrace)
				f.refusals.Put(pctx, a.site, after)
				cancel()
			}
		}
	}
	slot.Release(ex.end, next)
	return ex
}
