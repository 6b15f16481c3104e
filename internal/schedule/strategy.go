package schedule

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// A Strategy turns a feed's history into the time it is next due. Each
// feed's answer is stored (next_due) after each poll, so that choosing the
// hour's work is an indexed ORDER BY next_due over due feeds, whatever the
// strategy (see Pick).
type Strategy interface {
	// NextDue is when a feed polled at polled, with history h (already
	// updated with that poll), should be polled again.
	NextDue(polled time.Time, h *History) time.Time
	Name() string
}

// Fixed is the seed's rotation: a feed is due again Interval after each
// poll, and among due feeds the longest-waited goes first. With Interval 0
// every feed is always due and next_due is simply the last poll, so
// ORDER BY next_due is "longest-waited first" exactly; a non-zero Interval
// is FEED_INTERVAL, the least time between two reads of one feed.
type Fixed struct{ Interval time.Duration }

// NextDue implements Strategy.
func (f Fixed) NextDue(polled time.Time, _ *History) time.Time { return polled.Add(f.Interval) }

// Name implements Strategy.
func (Fixed) Name() string { return "fixed" }

// Adaptive is a Policy calibrated to a population and budget (see
// Policy.Calibrate): each feed's interval is Scale/rate^Exponent hours,
// at most PageFill/rate, clamped to [Floor, Ceiling].
type Adaptive struct {
	Policy
	// Scale is in hours·(posts a day)^Exponent; +Inf puts every feed at
	// the ceiling.
	Scale float64
	// Ceiling is the effective ceiling: Policy.Ceiling, or the stretched
	// one when Saturated.
	Ceiling time.Duration
	// Saturated reports that the budget cannot poll every feed once per
	// Policy.Ceiling within MaxFairShare of itself.
	Saturated bool
	// PageFill is the effective PageFill: Policy.PageFill, or more when
	// the budget cannot afford it, 0 when disabled.
	PageFill float64
}

// Interval is the time between polls of a feed publishing rate posts a day.
func (a Adaptive) Interval(rate float64) time.Duration {
	rate = min(max(rate, MinRate), MaxRate)
	h := a.Scale / math.Pow(rate, a.Exponent)
	ceil := a.Ceiling
	if ceil < a.Floor {
		ceil = a.Floor
	}
	if a.PageFill > 0 {
		h = min(h, a.PageFill*24/rate)
	}
	if !(h < hours(ceil)) { // also NaN and +Inf
		return ceil
	}
	if d := time.Duration(h * float64(time.Hour)); d > a.Floor {
		return d
	}
	return a.Floor
}

// NextDue implements Strategy. A feed never polled is due at once.
func (a Adaptive) NextDue(polled time.Time, h *History) time.Time {
	if h == nil || h.LastPoll.IsZero() {
		return polled
	}
	return polled.Add(a.Interval(h.Rate()))
}

// Name implements Strategy.
func (a Adaptive) Name() string {
	switch a.Exponent {
	case 0.5:
		return "adaptive"
	case 1:
		return "proportional"
	}
	return "adaptive-power"
}

// Due is one feed as the scheduler sees it: its id and stored next_due.
type Due struct {
	ID      int64
	NextDue time.Time
}

// Pick is the hour's choice, the reference for the store's query
//
//	SELECT id FROM feeds WHERE next_due <= :now ORDER BY next_due, id LIMIT :budget
//
// It returns the indexes into feeds of at most budget feeds due by now,
// earliest next_due first (ties by id). Earliest-due-first is what keeps
// the ceiling when the hour is oversubscribed: the feed that has been due
// longest is never passed over for one that fell due later.
func Pick(now time.Time, feeds []Due, budget int) []int {
	var due []int
	for i, f := range feeds {
		if !f.NextDue.After(now) {
			due = append(due, i)
		}
	}
	// Sort only the candidates; the store does this with an index.
	slices.SortFunc(due, func(i, j int) int {
		if c := feeds[i].NextDue.Compare(feeds[j].NextDue); c != 0 {
			return c
		}
		return cmp.Compare(feeds[i].ID, feeds[j].ID)
	})
	if len(due) > budget {
		due = due[:max(budget, 0)]
	}
	return due
}
