package schedule

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkFreshness is the freshness figure of issue 8: 45,000 feeds with
// heavy-tailed rates (DefaultPopulation), 300 polls an hour, days 14–60
// measured, under the seed's fixed rotation, the adaptive √-rate schedule
// and, for comparison, the proportional one — all in the same run over the
// same publications. Run with -benchtime=1x: one iteration is one whole
// simulation of each.
//
// Beside the measured ratio it prints the optimum for the same population
// and budget (PredictDelays, optimum.go): polls ∝ √rate without bounds,
// (mean √λ)²/mean λ of the rotation's delay, and the same law within the
// policy's 1 h floor and 7-day ceiling, which is the least any schedule that
// keeps FEED_MAX_INTERVAL can reach. "gap" is measured ÷ optimum.
func BenchmarkFreshness(b *testing.B) {
	pop := NewPopulation(DefaultPopulation())
	cfg := DefaultSim()
	prop := DefaultPolicy()
	prop.Exponent = 1
	var fixed, ad, pr SimResult
	for b.Loop() {
		fixed = Simulate(pop, Fixed{}, cfg)
		ad = Simulate(pop, DefaultPolicy().Calibrate(nil, cfg.Budget), cfg)
		pr = Simulate(pop, prop.Calibrate(nil, cfg.Budget), cfg)
	}
	report(b, "fixed", fixed)
	report(b, "adaptive", ad)
	b.ReportMetric(pr.MeanDelay, "proportional-mean-delay-hours")
	b.ReportMetric(ad.MeanDelay/fixed.MeanDelay, "adaptive/fixed-mean-delay")
	b.ReportMetric(pr.MeanDelay/fixed.MeanDelay, "proportional/fixed-mean-delay")
	for _, r := range []SimResult{fixed, ad, pr} {
		b.Logf("%-12s mean %5.1f h  median %5.1f  p90 %5.1f  p99 %5.1f  max %3.0f | posts %d, missed off page one %d | polls %d, %.1f%% found nothing | max gap %.0f h",
			r.Strategy, r.MeanDelay, r.MedianDelay, r.P90Delay, r.P99Delay, r.MaxDelay, r.Posts, r.Missed, r.Polls, 100*r.EmptyShare(), r.MaxGap)
	}
	reportOptimum(b, pop, cfg, DefaultPolicy(), fixed, ad)
}

// reportOptimum sets the measured adaptive/fixed ratio beside the optimum
// for the population's true rates at the same budget, unbounded and within
// p's floor and ceiling.
func reportOptimum(b *testing.B, pop *Population, cfg SimConfig, p Policy, fixed, ad SimResult) {
	opt := PredictDelays(pop.Rates, float64(cfg.Budget), p.Floor, p.Ceiling)
	measured := ad.MeanDelay / fixed.MeanDelay
	b.ReportMetric(opt.OptimumRatio(), "optimum/fixed-mean-delay")
	b.ReportMetric(measured/opt.OptimumRatio(), "adaptive/optimum-gap")
	b.ReportMetric(opt.BoundedRatio(), "bounded-optimum/fixed-mean-delay")
	b.ReportMetric(measured/opt.BoundedRatio(), "adaptive/bounded-optimum-gap")
	b.Logf("adaptive/fixed %.3f | optimum (polls ∝ √rate) %.3f (%.1f h), gap %.2f | within %g–%g h %.3f (%.1f h), gap %.2f | rotation predicted %.1f h, measured %.1f h",
		measured, opt.OptimumRatio(), opt.Optimum, measured/opt.OptimumRatio(),
		p.Floor.Hours(), p.Ceiling.Hours(), opt.BoundedRatio(), opt.Bounded, measured/opt.BoundedRatio(), opt.Fixed, fixed.MeanDelay)
}

func report(b *testing.B, name string, r SimResult) {
	b.ReportMetric(r.MeanDelay, name+"-mean-delay-hours")
	b.ReportMetric(r.MedianDelay, name+"-median-delay-hours")
	b.ReportMetric(r.P90Delay, name+"-p90-delay-hours")
	b.ReportMetric(r.EmptyShare(), name+"-empty-poll-share")
	b.ReportMetric(float64(r.Missed)/float64(max(r.Posts, 1)), name+"-missed-share")
}

// BenchmarkFreshnessCeiling is the operator's trade-off: a longer ceiling
// frees budget from dormant feeds for busy ones. The window is moved out to
// days 60–120 so that even a 30-day ceiling is past its first cycle.
func BenchmarkFreshnessCeiling(b *testing.B) {
	pc := DefaultPopulation()
	pc.Hours = 180 * 24
	pop := NewPopulation(pc)
	cfg := DefaultSim()
	cfg.Warmup, cfg.Days = 60, 120
	var fixed SimResult
	for _, c := range []int{7, 14, 30} {
		b.Run(fmt.Sprintf("ceiling=%dd", c), func(b *testing.B) {
			p := DefaultPolicy()
			p.Ceiling = time.Duration(c) * 24 * time.Hour
			var r SimResult
			for b.Loop() {
				if fixed.Posts == 0 {
					fixed = Simulate(pop, Fixed{}, cfg)
				}
				r = Simulate(pop, p.Calibrate(nil, cfg.Budget), cfg)
			}
			b.ReportMetric(r.MeanDelay, "mean-delay-hours")
			b.ReportMetric(r.MeanDelay/fixed.MeanDelay, "adaptive/fixed-mean-delay")
			reportOptimum(b, pop, cfg, p, fixed, r)
			b.Logf("ceiling %2dd: mean %5.1f h (fixed %5.1f)  median %5.1f  p90 %5.1f  p99 %5.1f | missed %d of %d | polls %d (fixed %d), %.1f%% found nothing | max gap %.0f h",
				c, r.MeanDelay, fixed.MeanDelay, r.MedianDelay, r.P90Delay, r.P99Delay, r.Missed, r.Posts, r.Polls, fixed.Polls, 100*r.EmptyShare(), r.MaxGap)
		})
	}
}
