package crawl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// Progress counts what a round has done, for the operator: sites done, in
// flight and due, requests and their rate, errors. Its counters are safe
// for concurrent use; Snapshot reads them.
type Progress struct {
	began    time.Time // wall clock: rates are what an operator sees
	due      atomic.Int64
	started  atomic.Int64
	done     atomic.Int64
	failed   atomic.Int64
	requests atomic.Int64
	errors   atomic.Int64
	// answered counts requests a server answered (any status), so that a
	// round in which none was can say so; unchanged the 304s.
	answered  atomic.Int64
	unchanged atomic.Int64
	// Posts found new, found modified and found removed in the round.
	newPosts, modifiedPosts, removedPosts atomic.Int64
	mu                                    sync.Mutex
	reasons                               map[string]int64 // errors by fetch.RecordReason
}

// ProgressSnapshot is a Progress at one moment.
type ProgressSnapshot struct {
	SitesDue, SitesDone, SitesInFlight, SitesFailed int64
	Requests, Errors                                int64
	Elapsed                                         time.Duration
}

// RequestsPerSecond is the round's request rate so far.
func (s ProgressSnapshot) RequestsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Requests) / s.Elapsed.Seconds()
}

// ETA estimates the time left from the rate at which sites finish; ok is
// false while no site has finished (the rate is unknown), zero when none
// is left.
func (s ProgressSnapshot) ETA() (eta time.Duration, ok bool) {
	left := s.SitesDue - s.SitesDone
	if left <= 0 {
		return 0, true
	}
	if s.SitesDone == 0 {
		return 0, false
	}
	return time.Duration(float64(s.Elapsed) / float64(s.SitesDone) * float64(left)), true
}

// etaText is the ETA as a progress line says it: "unknown" until a site
// has finished, never a made-up "0s".
func (s ProgressSnapshot) etaText() string {
	eta, ok := s.ETA()
	if !ok {
		return "unknown"
	}
	return eta.Round(time.Second).String()
}

func newProgress(due int64) *Progress {
	p := &Progress{began: time.Now()}
	p.due.Store(due)
	return p
}

// Snapshot reads the counters.
func (p *Progress) Snapshot() ProgressSnapshot {
	if p == nil {
		return ProgressSnapshot{}
	}
	started, done := p.started.Load(), p.done.Load()
	s := ProgressSnapshot{
		SitesDue: p.due.Load(), SitesDone: done, SitesInFlight: started - done, SitesFailed: p.failed.Load(),
		Requests: p.requests.Load(), Errors: p.errors.Load(), Elapsed: time.Since(p.began),
	}
	// Sites that became due during the round (given back by another
	// worker, say) raise the total rather than run past it.
	s.SitesDue = max(s.SitesDue, started)
	return s
}

func (p *Progress) started1() {
	if p != nil {
		p.started.Add(1)
	}
}

func (p *Progress) finished1(err error) {
	if p == nil {
		return
	}
	p.done.Add(1)
	if err != nil {
		p.failed.Add(1)
	}
}

// observe counts one record of the fetcher: a request sent, and whether it
// got no answer or a server error.
func (p *Progress) observe(rec model.RequestRecord) {
	if p == nil || rec.Status == 0 && rec.Outcome != model.OutcomeError {
		return // declined before any connection: not a request
	}
	p.requests.Add(1)
	if rec.Status != 0 {
		p.answered.Add(1)
	}
	if rec.Outcome == model.OutcomeUnchanged {
		p.unchanged.Add(1)
	}
	if rec.Outcome == model.OutcomeError || rec.Status >= 500 || rec.Status == 429 {
		p.errors.Add(1)
		p.mu.Lock()
		if p.reasons == nil {
			p.reasons = map[string]int64{}
		}
		p.reasons[fetch.RecordReason(rec)]++
		p.mu.Unlock()
	}
}

// Reasons of the failures of the crawl's own work that a round counts
// among its errors beside the requests' (Progress.failure): a round in
// which a job failed, or a write was lost, never says errors=0.
const (
	reasonJob         = "job failed"         // a step of a site's work returned an error (logged as "job failed")
	reasonNotRecorded = "not recorded"       // a write whose failure the job only logs (a spelling, a move)
	reasonRound       = "round query failed" // the frontier's own queries (due sites, checkouts)
	reasonWebSub      = "websub"             // the round's WebSub subscriptions
)

// failure counts n failures of the crawl's own work under reason in the
// round's errors.
func (p *Progress) failure(reason string, n int) {
	if p == nil || n <= 0 {
		return
	}
	p.errors.Add(int64(n))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reasons == nil {
		p.reasons = map[string]int64{}
	}
	p.reasons[reason] += int64(n)
}

// failures is how many failures err holds: the errors an errors.Join
// (however nested) gathered, each one; 0 for nil.
func failures(err error) int {
	if err == nil {
		return 0
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		n := 0
		for _, e := range j.Unwrap() {
			n += failures(e)
		}
		return n
	}
	return 1
}

// posts counts posts the round found new, modified or removed.
func (p *Progress) posts(added, modified, removed int) {
	if p != nil {
		p.newPosts.Add(int64(added))
		p.modifiedPosts.Add(int64(modified))
		p.removedPosts.Add(int64(removed))
	}
}

// errorReasons is the round's errors by reason, most frequent first, as
// "reason×n" joined by commas; "" when there was none.
func (p *Progress) errorReasons() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := slices.SortedFunc(maps.Keys(p.reasons), func(a, b string) int {
		return cmp.Or(cmp.Compare(p.reasons[b], p.reasons[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, p.reasons[k])
	}
	return strings.Join(parts, ", ")
}

// ErrNothingReached ends a round in which requests were made and not one
// was answered: the network, DNS or a proxy is down for us, or every
// target is refused by the private-address guard. `run --once` exits
// non-zero with it.
var ErrNothingReached = errors.New("no source could be reached")

// unreached is ErrNothingReached with the round's reasons, when the round
// made requests and none was answered; nil otherwise.
func (p *Progress) unreached() error {
	if p == nil || p.requests.Load() == 0 || p.answered.Load() > 0 {
		return nil
	}
	return fmt.Errorf("%w: %d requests, none answered (%s)", ErrNothingReached, p.requests.Load(), p.errorReasons())
}

// progressEvery is how often a round in progress says how far it is.
const progressEvery = 5 * time.Second

// report logs the round's progress every progressEvery of wall time until
// ctx ends: on a terminal, the status line; in a log, a line now and then.
func (c *Crawler) report(ctx context.Context, p *Progress) {
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s := p.Snapshot()
			c.Log.Info("progress", "sites_done", s.SitesDone, "sites_due", s.SitesDue, "in_flight", s.SitesInFlight,
				"requests", s.Requests, "req_per_s", int(s.RequestsPerSecond()+0.5), "errors", s.Errors,
				"eta", s.etaText())
		}
	}
}
