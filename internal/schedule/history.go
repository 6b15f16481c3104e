package schedule

import (
	"math"
	"slices"
	"time"
)

// The rate estimator is a Gamma–Poisson posterior with exponential
// forgetting: Count is the decayed number of posts seen, Exposure the
// decayed number of days the feed was watched, and the rate is
// (Count+PriorPosts)/(Exposure+PriorDays) posts a day. Both sums are
// multiplied by exp(-Δ/Memory) before each poll's evidence is added, so old
// behaviour fades out and the state stays two bounded numbers (Exposure can
// never exceed Memory in days). This is the "decayed counts over decayed
// time" estimator; unlike Cho & Garcia-Molina's change-detection estimators
// ("Estimating frequency of change", ACM TOIT 2003) it needs no correction
// for changes hidden between polls, because a feed lists every post with its
// date rather than only saying "changed".
const (
	// Memory is the e-folding time of the estimate: a blog's habits change
	// over months, and a monthly blogger needs about two months of watching
	// before its rate means anything. It is fixed (not a Policy field)
	// because stored histories are only comparable under one memory.
	Memory = 60 * 24 * time.Hour
	// PriorPosts and PriorDays are the Gamma prior: one post in 20 days,
	// held with the weight of two days of watching. Weak, so that a feed's
	// own evidence dominates within days and the estimate of a steadily
	// watched feed is shrunk by only PriorDays/Memory (3%); strong enough
	// that a first page of entries all stamped "just now" reads as about
	// three posts a day, not hundreds.
	PriorPosts = 0.1
	PriorDays  = 2.0
	// Grace is how far before the previous poll an entry may be dated and
	// still count as published since then: feed caches, and dates written
	// without their zone (up to ±14 h off), routinely lag our poll.
	Grace = 24 * time.Hour
	// MaxPerPoll bounds what one poll can add, so that no input can push the
	// state beyond what a feed page could honestly hold.
	MaxPerPoll = 100
	// MinRate and MaxRate bound Rate (posts a day).
	MinRate = 1e-4
	MaxRate = 1e4
	// maxCount keeps Count finite under any sequence of calls.
	maxCount = MaxRate * 60
)

// epochOfFeeds is the earliest date taken at face value: nothing was
// syndicated before the web, so an older date is a parsing accident.
var epochOfFeeds = time.Date(1991, 1, 1, 0, 0, 0, 0, time.UTC)

// lastTime is the latest time the text form holds.
var lastTime = time.Unix(maxUnix, 0)

// History is the bounded summary of what a feed's polls have shown. The zero
// value is a feed never polled. It is a value type: copy it, store it with
// MarshalText, and call Observe after each successful poll (a 200 or a 304;
// a failed poll shows nothing about the feed and is not observed).
type History struct {
	Count    float64   // decayed posts seen, as of LastPoll
	Exposure float64   // decayed days watched, as of LastPoll; ≤ Memory
	LastPoll time.Time // last observed poll
	LastPost time.Time // newest plausible publication date seen
	Idle     int       // consecutive polls that showed nothing new
	Polls    int       // observed polls (saturates)
}

// Rate is the estimated publishing rate in posts a day, in [MinRate, MaxRate].
func (h *History) Rate() float64 {
	r := (h.Count + PriorPosts) / (h.Exposure + PriorDays)
	if !(r >= MinRate) { // also catches NaN
		return MinRate
	}
	return min(r, MaxRate)
}

// Observe records one successful poll at pollTime. newEntryDates are the
// publication dates of the entries the poll found that were not held before
// (zero for an entry without a date). On a feed's first observation pass
// every entry on the page instead: the page is then the feed's recent
// history, and it is read as such (see backfill) rather than as a burst.
func (h *History) Observe(pollTime time.Time, newEntryDates []time.Time) {
	h.observe(pollTime, newEntryDates, false)
}

// ObserveOverflow is Observe for a poll in which every entry of the page was
// new: posts may have scrolled off the page unseen since the last poll, so
// the watched window starts at the oldest entry shown, not at the last poll.
// Without this, a busy feed polled too rarely looks as slow as its page is
// short, and is never polled often enough to find out otherwise.
func (h *History) ObserveOverflow(pollTime time.Time, newEntryDates []time.Time) {
	h.observe(pollTime, newEntryDates, true)
}

func (h *History) observe(poll time.Time, dates []time.Time, overflow bool) {
	if poll.Before(epochOfFeeds) || poll.After(lastTime) {
		// An uninitialised clock says nothing about the feed, and a time
		// past what the text form holds could not be stored.
		return
	}
	if h.LastPoll.IsZero() {
		h.backfill(poll, dates)
		return
	}
	if !poll.After(h.LastPoll) {
		// A clock that went back, or the same poll twice: nothing was
		// watched, so nothing is learnt; the state stays as it was.
		return
	}
	days := poll.Sub(h.LastPoll).Hours() / 24
	decay := math.Exp(-days / memoryDays)
	h.Count *= decay
	h.Exposure *= decay

	// Entries dated since the last poll (with Grace) are counted at their
	// dates. The rest — undated, or dated well before a poll that did not
	// show them — count as at most one post: it certainly appeared in this
	// window, but a batch of them is far likelier to be a feed re-issuing
	// old items under new links than a burst of writing, and undercounting
	// errs towards fewer requests.
	since := h.LastPoll.Add(-Grace)
	fresh := make([]time.Time, 0, len(dates))
	odd := false
	for _, d := range dates {
		switch {
		case d.Before(epochOfFeeds):
			odd = true
		case d.After(poll):
			// Future-dated (scheduled posts, wrong zone, garbage): it is
			// here now, so it was published by now.
			fresh = append(fresh, poll)
		case d.Before(since):
			odd = true
		default:
			fresh = append(fresh, d)
		}
	}
	start := h.LastPoll
	if overflow && len(fresh) > 1 {
		// The oldest entry shown bounds the window we actually saw; it is
		// the window's edge, not a sample from it (for Poisson arrivals,
		// (k-1)/S_k is the unbiased estimate).
		slices.SortFunc(fresh, time.Time.Compare)
		if o := fresh[0]; o.After(start) {
			start = o
			fresh = fresh[1:]
		}
	}
	w := min(poll.Sub(start).Hours()/24, days)
	h.Exposure += memoryDays * -math.Expm1(-w/memoryDays)
	n := 0
	for _, d := range fresh {
		if n == MaxPerPoll {
			break
		}
		h.Count += weight(poll, d)
		h.notePost(d)
		n++
	}
	if odd && n < MaxPerPoll {
		h.Count += weight(poll, poll.Add(-poll.Sub(h.LastPoll)/2))
	}
	h.finish(poll, len(dates) > 0)
}

// backfill reads a first page as the feed's recent past: as if we had been
// watching since its oldest dated entry, which bounds the window and is not
// itself counted. Spans shorter than a day are read as a day, so a page of
// entries all stamped with the import time does not claim hundreds a day.
func (h *History) backfill(poll time.Time, dates []time.Time) {
	valid := make([]time.Time, 0, len(dates))
	for _, d := range dates {
		switch {
		case d.Before(epochOfFeeds):
		case d.After(poll):
			valid = append(valid, poll)
		default:
			valid = append(valid, d)
		}
	}
	slices.SortFunc(valid, time.Time.Compare)
	if len(valid) > MaxPerPoll+1 {
		valid = valid[len(valid)-MaxPerPoll-1:]
	}
	if len(valid) > 0 {
		span := max(poll.Sub(valid[0]).Hours()/24, 1)
		h.Exposure = memoryDays * -math.Expm1(-span/memoryDays)
		h.notePost(valid[0])
		for _, d := range valid[1:] {
			h.Count += weight(poll, d)
			h.notePost(d)
		}
	}
	h.finish(poll, len(valid) > 0)
}

func (h *History) finish(poll time.Time, sawNew bool) {
	h.Count = min(max(h.Count, 0), maxCount)
	h.Exposure = min(max(h.Exposure, 0), memoryDays)
	h.LastPoll = poll
	if sawNew {
		h.Idle = 0
	} else if h.Idle < math.MaxInt32 {
		h.Idle++
	}
	if h.Polls < math.MaxInt32 {
		h.Polls++
	}
}

func (h *History) notePost(d time.Time) {
	if d.After(h.LastPost) {
		h.LastPost = d
	}
}

const memoryDays = float64(Memory / (24 * time.Hour))

// weight is a post's decayed weight at poll time.
func weight(poll, d time.Time) float64 {
	age := max(poll.Sub(d).Hours()/24, 0)
	return math.Exp(-age / memoryDays)
}
