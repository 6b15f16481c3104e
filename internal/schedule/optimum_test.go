package schedule

import (
	"math"
	"testing"
	"time"
)

// Four feeds publishing 1, 4, 9 and 0 posts a day, one poll an hour, worked
// by hand. The rotation reads each every 4 h: 2 h on average.
//
// Unbounded: polls ∝ √λ = 1:2:3:0, so every 6, 3 and 2 h; the delay is
// (1·3 + 4·1.5 + 9·1)/14 = 18/14 = 9/7 h, and (mean √λ)²/mean λ =
// 1.5²/3.5 = 9/14 of the rotation's.
func TestPredictDelaysByHand(t *testing.T) {
	rates := []float64{1, 4, 9, 0}
	const h = time.Hour
	for _, tc := range []struct {
		name           string
		floor, ceiling time.Duration
		bounded        float64
		saturated      bool
	}{
		// The quiet feed takes 1/8 of the hour; the rest, 7/8, goes
		// 1:2:3, every 48/7, 24/7 and 16/7 h, all inside the bounds:
		// (1·24/7 + 4·12/7 + 9·8/7)/14 = 144/98 = 72/49 h.
		{"ceiling 8 h", h, 8 * h, 72.0 / 49, false},
		// As above, but the first feed would wait 7.5 h: it is held at
		// 5 h, and the quiet feed's 1/5 and its 1/5 leave 3/5 for the
		// others, 2:3, every 25/6 and 25/9 h: (1·5 + 4·25/6 + 9·25/9)/28
		// = 5/3 h.
		{"ceiling 5 h", h, 5 * h, 5.0 / 3, false},
		// Floor 2.5 h, ceiling 8 h: the busiest feed (16/7 h above) is
		// held at the floor, 2/5 of the hour; 7/8 − 2/5 = 19/40 goes 1:2,
		// every 120/19 and 60/19 h: (1·120/19 + 4·60/19 + 9·2.5)/28 =
		// 225/152 h.
		{"floor 2.5 h", 5 * h / 2, 8 * h, 225.0 / 152, false},
		// Four feeds once per 3 h is 4/3 polls an hour, over the budget:
		// the rotation is all there is.
		{"ceiling under the rotation", h, 3 * h, 2, true},
		// A ceiling under the floor is the floor: every feed once per
		// 5 h, which leaves a fifth of the budget unspent and is worse
		// than the rotation, whose 4 h the floor forbids.
		{"ceiling under the floor", 5 * h, h, 2.5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := PredictDelays(rates, 1, tc.floor, tc.ceiling)
			near(t, "fixed", d.Fixed, 2)
			near(t, "optimum", d.Optimum, 9.0/7)
			near(t, "optimum ratio", d.OptimumRatio(), 9.0/14)
			near(t, "bounded", d.Bounded, tc.bounded)
			near(t, "bounded ratio", d.BoundedRatio(), tc.bounded/2)
			if d.Saturated != tc.saturated {
				t.Errorf("Saturated = %v", d.Saturated)
			}
		})
	}
	// A budget that keeps every feed at the floor: the floor is the delay.
	if d := PredictDelays(rates, 10, h, 8*h); math.Abs(d.Bounded-0.5) > 1e-9 {
		t.Errorf("ample budget: bounded %v h, want 0.5", d.Bounded)
	}
	// No posts, or no feeds: nothing to gain, and no NaN.
	if d := PredictDelays([]float64{0, 0}, 1, h, 8*h); d.OptimumRatio() != 1 || d.BoundedRatio() != 1 {
		t.Errorf("no posts: %+v", d)
	}
	if d := PredictDelays(nil, 1, h, 8*h); d != (Delays{}) {
		t.Errorf("no feeds: %+v", d)
	}
}

// On a log-normal population the unbounded ratio is exp(−σ²/4) times the
// share of feeds that publish; the √ law clamped to the bounds can only
// be worse than unbounded and better than the rotation; and the bounded
// optimum is what the policy's own law reaches when it is given the true
// rates and the whole budget, without PageFill.
func TestPredictDelaysPopulation(t *testing.T) {
	c := DefaultPopulation()
	c.Feeds, c.MaxRate, c.Hours = 40000, 1e9, 1
	pop := NewPopulation(c)
	active := 0
	for _, r := range pop.Rates {
		if r > 0 {
			active++
		}
	}
	p := DefaultPolicy()
	const budget = 300
	d := PredictDelays(pop.Rates, budget, p.Floor, p.Ceiling)
	want := math.Exp(-c.Sigma*c.Sigma/4) * float64(active) / float64(len(pop.Rates))
	if r := d.OptimumRatio(); math.Abs(r-want) > 0.08*want {
		t.Errorf("optimum ratio %.3f, want exp(−σ²/4)·active share = %.3f", r, want)
	}
	if !(d.Optimum < d.Bounded && d.Bounded < d.Fixed) {
		t.Errorf("want optimum < bounded < fixed: %+v", d)
	}
	p.PageFill, p.Utilisation, p.MaxFairShare = 0, 1, 1
	a := p.Calibrate(pop.Rates, budget)
	var w, sum float64
	for _, r := range pop.Rates {
		w += r * a.Interval(r).Hours() / 2
		sum += r
	}
	near(t, "policy's law with true rates", w/sum, d.Bounded)
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}
