package schedule

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
