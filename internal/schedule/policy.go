package schedule

import (
	"math"
	"time"
)

// Policy holds the operator's knobs for adaptive polling.
type Policy struct {
	// Floor is the shortest interval: no feed, however busy, is polled more
	// than once per Floor (the crawler runs hourly, so 1 h is also the
	// resolution of any schedule).
	Floor time.Duration
	// Ceiling is the fair share of a dormant feed: every feed is polled at
	// least once per Ceiling, however quiet, so a blog that wakes up is
	// found within it and nothing starves.
	Ceiling time.Duration
	// Exponent is how poll frequency follows the estimated rate:
	// frequency ∝ rate^Exponent. 0.5 (the default) minimises mean delay from
	// publication to discovery (see optimum.go); 1 is the proportional
	// policy, 0 is uniform. Kept as a knob for the simulation's comparison.
	Exponent float64
	// Utilisation is the fraction of the budget the calibrated schedule
	// plans to spend. Below 1, the headroom absorbs the hours in which more
	// feeds fall due than average, so being due rarely means waiting; but
	// when the ceiling alone takes most of the budget (268 of 300 polls an
	// hour at the seed's scale) every poll of headroom is taken from the
	// few that follow the rates, and the benchmark measured 0.99 to cost
	// 3% of mean delay against 1, which waits at most an hour longer past
	// the ceiling (BenchmarkFreshness). Pick never exceeds the
	// budget either way.
	Utilisation float64
	// MaxFairShare is the largest fraction of the budget that the ceiling
	// alone may take. When polling every feed once per Ceiling would need
	// more (the budget is saturated: budget·MaxFairShare < feeds/Ceiling),
	// the effective ceiling stretches to feeds/(budget·MaxFairShare), so a
	// fixed part of the budget still goes to the busy feeds and the
	// stretched ceiling is what every feed is promised instead.
	MaxFairShare float64
	// PageFill caps the posts a poll is expected to find: a feed's interval
	// is at most PageFill/rate. Page one holds only the newest few entries
	// (ten, by WordPress's default), and a post pushed off it before we
	// look is never found in the feed at all; with 5, a page of 10
	// overflows on about 3% of polls (Poisson). The mean-delay optimum alone
	// lets the busiest feeds run to 10–20 posts a poll, because it counts a
	// post found late the same whatever the lateness costs. 0 disables it.
	PageFill float64
}

// DefaultPolicy is 1 h to 7 days, square-root allocation, the whole budget
// planned.
// Seven days keeps the seed's promise ("your turn comes round about every
// six days") within a day for the quietest feed.
func DefaultPolicy() Policy {
	return Policy{
		Floor:        time.Hour,
		Ceiling:      7 * 24 * time.Hour,
		Exponent:     0.5,
		Utilisation:  1,
		MaxFairShare: 0.95,
		PageFill:     5,
	}
}

// Calibrate fits the policy to a population and a budget: it finds the one
// scale for which the intervals clamp(scale/rate^Exponent, Floor, ceiling)
// of all feeds add up to Utilisation·budgetPerHour polls an hour. rates are
// the feeds' History.Rate values (one per feed to be scheduled, posts a
// day). The scale is a property of the whole population, so the crawler
// recalibrates periodically (daily is plenty) and uses the result for every
// NextDue until the next calibration.
func (p Policy) Calibrate(rates []float64, budgetPerHour int) Adaptive {
	return p.CalibrateTo(rates, float64(budgetPerHour))
}

// CalibrateTo is Calibrate for a budget that may be a fraction of a poll
// an hour: a crawler of twenty blogs read once a day on average plans for
// 20/24 polls an hour.
func (p Policy) CalibrateTo(rates []float64, budget float64) Adaptive {
	a := Adaptive{Policy: p, Ceiling: p.Ceiling, PageFill: p.PageFill}
	n := float64(len(rates))
	if n == 0 || budget <= 0 {
		a.Scale, a.PageFill = math.Inf(1), 0 // every feed at the ceiling
		return a
	}
	if share := p.MaxFairShare; share > 0 && n/hours(p.Ceiling) > share*budget {
		a.Ceiling = time.Duration(math.Ceil(n/(share*budget))) * time.Hour
		a.Saturated = true
	}
	target := p.Utilisation * budget
	floor, ceil := hours(p.Floor), math.Max(hours(a.Ceiling), hours(p.Floor))
	// rate^-Exponent once per feed; the bisections then only multiply.
	w := make([]float64, len(rates))
	r := make([]float64, len(rates))
	for i, x := range rates {
		r[i] = min(max(x, MinRate), MaxRate)
		w[i] = math.Pow(r[i], -p.Exponent)
	}
	// demand is polls an hour, the sum of 1/Interval (see Interval).
	demand := func(scale, fill float64) float64 {
		var d float64
		for i, x := range w {
			iv := scale * x
			if fill > 0 {
				iv = min(iv, fill*24/r[i])
			}
			d += 1 / min(max(iv, floor), ceil)
		}
		return d
	}
	// Demand falls as the scale grows, from every feed at the floor (lo) to
	// every feed at its cap (hi).
	lo, hi := math.Log(floor*math.Pow(MinRate, p.Exponent)), math.Log(ceil*math.Pow(MaxRate, p.Exponent))
	if p.PageFill > 0 && demand(math.Exp(hi), p.PageFill) > target {
		// The budget cannot keep every busy feed's page from overflowing:
		// PageFill gives way (as little as needed) rather than the budget.
		a.PageFill = math.Exp(bisect(math.Log(p.PageFill), math.Log(p.PageFill)+30, func(f float64) bool {
			return demand(math.Exp(hi), math.Exp(f)) > target
		}))
	}
	if demand(math.Exp(lo), a.PageFill) <= target {
		a.Scale = math.Exp(lo)
		return a
	}
	a.Scale = math.Exp(bisect(lo, hi, func(s float64) bool { return demand(math.Exp(s), a.PageFill) > target }))
	return a
}

// bisect returns the least x in [lo, hi] (to 2⁻⁵⁰ of the range) for which
// over(x) is false, over being true below some point and false above it.
func bisect(lo, hi float64, over func(float64) bool) float64 {
	for range 50 {
		mid := (lo + hi) / 2
		if over(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

func hours(d time.Duration) float64 { return d.Hours() }
