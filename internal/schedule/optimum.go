package schedule

import (
	"math"
	"time"
)

// Why frequency ∝ √rate, and not ∝ rate.
//
// What we measure is the delay from a post's publication to our discovery
// of it, averaged over posts. Model feed i as a Poisson source of rate λᵢ
// polled every Tᵢ. A post lands uniformly inside a polling interval, so it
// waits Tᵢ/2 on average, and feed i contributes λᵢ·Tᵢ/2 post-hours of
// delay per hour. With a budget of B polls an hour (Σ 1/Tᵢ = B), minimise
//
//	Σ λᵢ·Tᵢ   subject to   Σ 1/Tᵢ = B.
//
// The Lagrangian gives λᵢ − μ/Tᵢ² = 0, so Tᵢ = √(μ/λᵢ): poll frequency
// proportional to the square root of the rate. With the operator's bounds
// the KKT conditions give the same law clamped to [Floor, Ceiling], which
// is exactly Adaptive.Interval with the scale √μ found by Calibrate.
//
// The familiar alternatives are worse for this metric:
//   - Uniform (the seed's rotation, Tᵢ = N/B for all) ignores that most
//     posts come from few feeds; it spends as much on a blog that posts
//     yearly as on one that posts hourly.
//   - Proportional (frequency ∝ λᵢ, i.e. "poll the feed with the most
//     expected unseen posts, λᵢ·elapsed") equalises the expected number of
//     posts waiting per poll. That looks natural but over-serves the busiest
//     feeds: their marginal poll saves less delay than a poll of a
//     mid-rate feed. Cho & Garcia-Molina showed the related surprise for
//     binary freshness ("Synchronizing a database to improve freshness",
//     SIGMOD 2000; "Effective page refresh policies for web crawlers", ACM
//     TODS 28(4), 2003): proportional is worse than uniform there, and the
//     freshness optimum even starves the fastest pages. Our metric is not
//     their freshness — a post is an event that is either found or still
//     waiting, every post counts, and a busy feed's posts are not "lost" by
//     being overwritten — so their optimum does not carry over; the
//     derivation above does, and the simulation (sim.go, freshness_test.go)
//     checks it: √ beats both proportional and uniform at the same budget.
//
// Equivalently, the index policy "poll the feed with the largest λᵢ·tᵢ²"
// (tᵢ the time since its last poll, so λᵢ·tᵢ²/2 is the delay its unseen
// posts have accrued) polls each feed when λᵢ·tᵢ² reaches a common
// threshold, i.e. at Tᵢ ∝ 1/√λᵢ. We store the deadline instead of ranking
// by the index at query time, because a deadline is one indexed column and
// λᵢ·(now−lastᵢ)² is not.

// What the optimum is worth, in numbers: PredictDelays computes
// the mean delay of the fixed rotation and of the √ law from a population's
// true rates, so that a measured schedule can be set beside the best any
// schedule could do on the same feeds at the same budget.
//
// With B polls an hour over N feeds, feed i polled fᵢ times an hour
// (Σ fᵢ = B) has posts waiting 1/(2fᵢ) on average, and carries a share
// λᵢ/Σλ of the posts, so the mean delay over posts is
//
//	D = Σ λᵢ/(2fᵢ) / Σ λᵢ.
//
// The rotation (fᵢ = B/N) gives D = N/(2B) whatever the rates. The √ law
// (fᵢ = B·√λᵢ/Σ√λ) gives D = (Σ√λ)²/(2B·Σλ), so its mean delay relative
// to the rotation's is
//
//	(Σ√λ)²/(N·Σλ) = (mean √λ)² / mean λ,
//
// which is 1 when every feed publishes alike and falls as the rates spread
// (for log-normal rates of log-sd σ it is exp(−σ²/4), times the share of
// feeds that publish at all). A feed that publishes nothing gets no polls.
//
// That is the optimum without bounds, and the crawler has bounds: every
// feed is read at least once per Ceiling (FEED_MAX_INTERVAL, 7 days by
// default: a blog that wakes up is found within a week) and at most once per
// Floor. Minimising D under Floor ≤ 1/fᵢ ≤ Ceiling as well gives, by the
// KKT conditions, the same law clamped: 1/fᵢ = clamp(s/√λᵢ, Floor,
// Ceiling), with the one s at which the polls add up to B; a feed that
// publishes nothing sits at the ceiling. When the ceiling binds on most
// feeds — as it does at the seed's scale, where reading 45,000 feeds weekly
// already takes 268 of 300 polls an hour — this bounded optimum is far
// above the unbounded one, and no schedule that keeps the ceiling can get
// below it: for one feed, polls at uneven gaps gᵢ delay its posts by
// Σg²/(2Σg) ≥ mean gap/2 on average (Cauchy–Schwarz), so even spacing is
// best, and the bounded problem above is then the whole problem.
//
// What the simulation measures differs from this model in small ways, none
// of which the optimum needs to model: posts follow a daily cycle (the
// rates above are the daily means; a schedule that timed busy feeds' polls
// to the afternoon peak could gain at most about 3% on those feeds, since
// (E√(1+½cos))² ≈ 0.97), polls fall on whole hours (an interval is rounded
// up to the next hour), and the schedule estimates the rates that the
// optimum is given. The rotation's measured mean, 75.05 h against N/(2B) =
// 75 h on the benchmark's population, shows how closely the model fits.

// Delays are mean publication→discovery delays in hours, over posts, as
// predicted for a population's true rates at a budget.
type Delays struct {
	Fixed     float64 // the rotation: every feed once per N/B hours
	Optimum   float64 // polls ∝ √rate, no bounds
	Bounded   float64 // polls ∝ √rate within [Floor, Ceiling]
	Saturated bool    // N/Ceiling > B: the bounds leave no choice but the rotation
}

// OptimumRatio is the unbounded optimum's mean delay as a fraction of the
// rotation's, (mean √λ)²/mean λ.
func (d Delays) OptimumRatio() float64 { return d.Optimum / d.Fixed }

// BoundedRatio is the bounded optimum's mean delay as a fraction of the
// rotation's.
func (d Delays) BoundedRatio() float64 { return d.Bounded / d.Fixed }

// PredictDelays returns the mean delays of the rotation and of the two
// optima (see above) for feeds with the given mean publishing rates (posts
// a day; only their proportions matter) at budget polls an hour. A ceiling
// under the floor is the floor, as in Adaptive.Interval. With no posts at
// all there is nothing to gain, and the optima are the rotation's.
func PredictDelays(rates []float64, budget float64, floor, ceiling time.Duration) Delays {
	n := float64(len(rates))
	if n == 0 || !(budget > 0) {
		return Delays{}
	}
	d := Delays{Fixed: n / (2 * budget)}
	var sumSqrt, sum, minRate, maxRate float64
	active := 0
	for _, r := range rates {
		if !(r > 0) {
			continue
		}
		sumSqrt += math.Sqrt(r)
		sum += r
		if active == 0 || r < minRate {
			minRate = r
		}
		maxRate = max(maxRate, r)
		active++
	}
	if sum == 0 || math.IsInf(sum, 0) {
		d.Optimum, d.Bounded = d.Fixed, d.Fixed
		return d
	}
	d.Optimum = sumSqrt * sumSqrt / (2 * budget * sum)

	lo, hi := hours(floor), math.Max(hours(ceiling), hours(floor))
	quiet := n - float64(active) // at the ceiling, where they cost least
	if n/hi > budget {
		// Every feed at the ceiling is already over budget: the most any
		// schedule can do is read each once per N/B, which is the rotation.
		d.Bounded, d.Saturated = d.Fixed, true
		return d
	}
	interval := func(s, r float64) float64 { return min(max(s/math.Sqrt(r), lo), hi) }
	delay := func(s float64) float64 {
		var w float64
		for _, r := range rates {
			if r > 0 {
				w += r * interval(s, r)
			}
		}
		return w / (2 * sum)
	}
	polls := func(s float64) float64 {
		p := quiet / hi
		for _, r := range rates {
			if r > 0 {
				p += 1 / interval(s, r)
			}
		}
		return p
	}
	// Polls fall as s grows, from every active feed at the floor (s ≤
	// lo·√minRate) to every feed at the ceiling (s ≥ hi·√maxRate).
	sLo, sHi := lo*math.Sqrt(minRate), hi*math.Sqrt(maxRate)
	if sLo <= 0 { // no floor: start the search far below the ceiling
		sLo = sHi * 1e-12
	}
	if polls(sLo) <= budget {
		d.Bounded = delay(sLo)
		return d
	}
	d.Bounded = delay(math.Exp(bisect(math.Log(sLo), math.Log(sHi), func(ls float64) bool {
		return polls(math.Exp(ls)) > budget
	})))
	return d
}
