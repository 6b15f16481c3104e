package schedule

import (
	"math"
	"testing"
	"time"
)

func TestIntervalBounds(t *testing.T) {
	p := DefaultPolicy()
	a := p.Calibrate([]float64{0.01, 0.1, 1, 10}, 1)
	prev := time.Duration(math.MaxInt64)
	for _, r := range []float64{math.Inf(-1), -1, 0, MinRate, 1e-3, 0.01, 0.1, 1, 10, 100, MaxRate, math.Inf(1)} {
		iv := a.Interval(r)
		if iv < p.Floor || iv > a.Ceiling {
			t.Errorf("Interval(%v) = %v, outside [%v, %v]", r, iv, p.Floor, a.Ceiling)
		}
		if iv > prev {
			t.Errorf("Interval(%v) = %v > %v: a busier feed polled less often", r, iv, prev)
		}
		prev = iv
	}
	if iv := a.Interval(math.NaN()); iv < p.Floor || iv > a.Ceiling {
		t.Errorf("Interval(NaN) = %v", iv)
	}
	if a.Interval(0) != a.Ceiling {
		t.Errorf("a dormant feed gets %v, want the ceiling %v", a.Interval(0), a.Ceiling)
	}
	if a.Interval(MaxRate) != p.Floor {
		t.Errorf("the busiest feed gets %v, want the floor %v", a.Interval(MaxRate), p.Floor)
	}
	// √ law between the bounds: a feed 4× busier is polled 2× as often.
	if r := float64(a.Interval(0.04)) / float64(a.Interval(0.16)); math.Abs(r-2) > 0.01 {
		t.Errorf("interval ratio for 4× the rate = %.3f, want 2", r)
	}
	// A ceiling below the floor is the floor.
	odd := Adaptive{Policy: Policy{Floor: 2 * time.Hour, Exponent: 0.5}, Scale: 1, Ceiling: time.Hour}
	if iv := odd.Interval(1); iv != 2*time.Hour {
		t.Errorf("ceiling under floor: %v", iv)
	}
}

// demand is polls an hour under a, the quantity Calibrate fits.
func demand(a Adaptive, rates []float64) float64 {
	var d float64
	for _, r := range rates {
		d += 1 / a.Interval(r).Hours()
	}
	return d
}

func TestCalibrate(t *testing.T) {
	pop := NewPopulation(PopulationConfig{Feeds: 4500, Seed: 3, DormantShare: 0.3, MedianGapDays: 14, Sigma: 1.6, MaxRate: 48, PageSize: 10, Hours: 1})
	rates := make([]float64, len(pop.Rates))
	for i, r := range pop.Rates {
		rates[i] = max(r, MinRate)
	}
	p := DefaultPolicy()
	for _, tc := range []struct {
		name      string
		budget    int
		saturated bool
	}{
		{"ample", 300, false},
		{"seed ratio", 30, false},
		{"saturated: feeds/ceiling exceeds the fair share", 20, true},
		{"far too small", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := p.Calibrate(rates, tc.budget)
			d := demand(a, rates)
			if d > float64(tc.budget)*p.Utilisation*1.001 {
				t.Errorf("planned %.2f polls an hour, over %v×%d", d, p.Utilisation, tc.budget)
			}
			if a.Saturated != tc.saturated {
				t.Errorf("Saturated = %v", a.Saturated)
			}
			if tc.saturated {
				want := float64(len(rates)) / (p.MaxFairShare * float64(tc.budget))
				if h := a.Ceiling.Hours(); h < want || h > want+1 {
					t.Errorf("stretched ceiling %.0f h, want ⌈%.1f⌉", h, want)
				}
			} else if a.Ceiling != p.Ceiling {
				t.Errorf("ceiling %v moved", a.Ceiling)
			}
			if a.PageFill < p.PageFill {
				t.Errorf("PageFill %v tightened below the policy's %v", a.PageFill, p.PageFill)
			}
			for _, r := range rates {
				if iv := a.Interval(r); iv > p.Floor && r*iv.Hours()/24 > a.PageFill*1.0001 {
					t.Fatalf("rate %.3g: interval %v expects %.1f posts a poll, over PageFill %.1f", r, iv, r*iv.Hours()/24, a.PageFill)
				}
			}
			// Unless every feed already sits at the floor, the plan uses
			// the budget it was given.
			if a.Interval(MinRate) > p.Floor && d < float64(tc.budget)*p.Utilisation*0.98 {
				t.Errorf("planned only %.2f of %d polls an hour", d, tc.budget)
			}
		})
	}
	if a := p.Calibrate(nil, 300); a.Interval(1) != a.Ceiling {
		t.Errorf("no feeds: %v", a.Interval(1))
	}
	if a := p.Calibrate(rates, 0); a.Interval(MaxRate) != a.Ceiling {
		t.Errorf("no budget: %v", a.Interval(MaxRate))
	}
	if a := p.Calibrate([]float64{1, 2}, 300); a.Interval(MinRate) != p.Floor {
		t.Errorf("two feeds and a big budget: %v, want the floor", a.Interval(MinRate))
	}
}

func TestNextDue(t *testing.T) {
	a := DefaultPolicy().Calibrate([]float64{1}, 1)
	var h History
	if got := a.NextDue(t0, &h); !got.Equal(t0) {
		t.Errorf("never polled: due %v, want at once", got)
	}
	h.Observe(t0, every(t0, day, 10))
	if got := a.NextDue(t0, &h); !got.Equal(t0.Add(a.Interval(h.Rate()))) {
		t.Errorf("NextDue = %v", got)
	}
	if got := (Fixed{}).NextDue(t0, &h); !got.Equal(t0) {
		t.Errorf("Fixed{} due %v, want the poll time (longest-waited first)", got)
	}
	if got := (Fixed{Interval: day}).NextDue(t0, nil); !got.Equal(t0.Add(day)) {
		t.Errorf("Fixed{day} due %v", got)
	}
	names := map[string]bool{Fixed{}.Name(): true, a.Name(): true}
	a.Exponent = 1
	names[a.Name()] = true
	if len(names) != 3 {
		t.Errorf("names not distinct: %v", names)
	}
}

func TestPick(t *testing.T) {
	now := t0
	feeds := []Due{
		{ID: 5, NextDue: now.Add(time.Hour)},  // not due
		{ID: 4, NextDue: now.Add(-time.Hour)}, // due, tie with 2
		{ID: 2, NextDue: now.Add(-time.Hour)},
		{ID: 9, NextDue: now},                // due exactly now
		{ID: 7, NextDue: time.Time{}},        // never polled: first
		{ID: 1, NextDue: now.Add(-48 * day)}, // long overdue
	}
	for _, tc := range []struct {
		budget int
		want   []int
	}{
		{10, []int{4, 5, 2, 1, 3}},
		{3, []int{4, 5, 2}},
		{0, []int{}},
		{-1, []int{}},
	} {
		got := Pick(now, feeds, tc.budget)
		if len(got) != len(tc.want) {
			t.Errorf("budget %d: %v, want %v", tc.budget, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("budget %d: %v, want %v", tc.budget, got, tc.want)
				break
			}
		}
	}
}
