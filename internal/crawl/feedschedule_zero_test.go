package crawl

import (
	"math"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
)

// FEED_INTERVAL 0 ("always due", for simulations) reaches the adaptive
// schedule's budget as FEED_BUDGET, and no feeds as none: never NaN or
// Inf, which Calibrate would carry into every feed's next_due.
func TestPlannedPollsZeroInterval(t *testing.T) {
	s := config.Defaults()
	tests := []struct {
		feeds    int
		interval time.Duration
		want     float64
	}{
		{feeds: 0, interval: 0, want: 0},
		{feeds: 20, interval: 0, want: float64(s.FeedBudget)},
		{feeds: 1, interval: 0, want: float64(s.FeedBudget)},
		{feeds: 0, interval: 24 * time.Hour, want: 0},
		{feeds: 20, interval: 24 * time.Hour, want: 20.0 / 24},
		{feeds: 20, interval: time.Minute, want: float64(s.FeedBudget)}, // 1200 an hour, capped
		{feeds: 20, interval: time.Nanosecond, want: float64(s.FeedBudget)},
	}
	for _, tt := range tests {
		s.FeedInterval = tt.interval
		got := plannedPolls(tt.feeds, s)
		if math.IsNaN(got) || math.IsInf(got, 0) || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("plannedPolls(%d feeds, FEED_INTERVAL=%v) = %v, want %v", tt.feeds, tt.interval, got, tt.want)
		}
	}
}

// FEED_MAX_INTERVAL under the schedule's floor (0 in a simulation) puts
// every feed at the floor; it is not taken for a saturated budget.
func TestPolicyZeroCeiling(t *testing.T) {
	rates := []float64{0.01, 0.2, 1, 3, 40}
	for _, ceiling := range []time.Duration{0, time.Second, 59 * time.Minute} {
		c := New(Config{Settings: config.Defaults()})
		c.Settings.FeedMaxInterval = ceiling
		c.Settings.FeedInterval = 0
		p := c.policy()
		a := p.CalibrateTo(rates, plannedPolls(len(rates), c.Settings))
		if a.Saturated {
			t.Errorf("FEED_MAX_INTERVAL=%v: saturated with %d feeds and %d polls an hour", ceiling, len(rates), c.Settings.FeedBudget)
		}
		for _, r := range rates {
			if got := a.Interval(r); got != p.Floor {
				t.Errorf("FEED_MAX_INTERVAL=%v: interval at %v posts a day = %v, want the floor %v", ceiling, r, got, p.Floor)
			}
		}
	}
}
