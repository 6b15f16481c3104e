package schedule

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// every returns n dates, one per gap, ending at end.
func every(end time.Time, gap time.Duration, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range n {
		out[i] = end.Add(-time.Duration(n-1-i) * gap)
	}
	return out
}

// pollRegularly polls a feed posting one post per gap, every interval, for
// span, starting with a first page of page entries. Overflowing polls (more
// new posts than a page of page entries) use ObserveOverflow, as the
// crawler would.
func pollRegularly(h *History, gap, interval, span time.Duration, page int) {
	h.Observe(t0, every(t0, gap, page))
	lastPost := t0
	for t := t0.Add(interval); !t.After(t0.Add(span)); t = t.Add(interval) {
		var fresh []time.Time
		for p := lastPost.Add(gap); !p.After(t); p = p.Add(gap) {
			fresh = append(fresh, p)
			lastPost = p
		}
		if len(fresh) >= page {
			h.ObserveOverflow(t, fresh[len(fresh)-page:])
		} else {
			h.Observe(t, fresh)
		}
	}
}

func TestHistoryRate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		run      func(h *History)
		lo, hi   float64 // bounds on Rate, posts a day
		idle     int     // -1: not checked
		lastPost time.Time
	}{
		{"daily poster, daily polls", func(h *History) { pollRegularly(h, day, day, 120*day, 10) }, 0.95, 1.05, 0, t0.Add(120 * day)},
		{"ten a day, hourly polls", func(h *History) { pollRegularly(h, day/10, time.Hour, 90*day, 10) }, 9.5, 10.5, -1, time.Time{}},
		{"weekly poster, daily polls", func(h *History) { pollRegularly(h, 7*day, day, 180*day, 10) }, 0.12, 0.17, -1, time.Time{}},
		{"forty a day, polled daily with overflow", func(h *History) { pollRegularly(h, day/40, day, 60*day, 10) }, 30, 45, 0, time.Time{}},
		{"first page only: ten posts over 90 days", func(h *History) { h.Observe(t0, every(t0, 10*day, 10)) }, 0.08, 0.13, 0, t0},
		{"first page only: burst, all stamped with the import time", func(h *History) {
			h.Observe(t0, every(t0, 0, 10))
		}, 0, 3.1, 0, t0},
		{"burst then quiet for a month", func(h *History) {
			h.Observe(t0, every(t0, 0, 10))
			for d := 1; d <= 30; d++ {
				h.Observe(t0.Add(time.Duration(d)*day), nil)
			}
		}, 0, 0.3, 30, t0},
		{"dormant: page two years old, polled weekly for a year", func(h *History) {
			h.Observe(t0, every(t0.Add(-730*day), 30*day, 10))
			for w := 1; w <= 52; w++ {
				h.Observe(t0.Add(time.Duration(w)*7*day), nil)
			}
		}, MinRate, 0.006, 52, t0.Add(-730 * day)},
		{"future dates count as now", func(h *History) {
			h.Observe(t0, every(t0, 7*day, 10))
			for d := 1; d <= 30; d++ {
				h.Observe(t0.Add(time.Duration(d)*day), []time.Time{time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)})
			}
		}, 0.4, 1.0, 0, t0.Add(30 * day)},
		{"stale and undated entries count once a poll", func(h *History) {
			h.Observe(t0, every(t0, 7*day, 10))
			for d := 1; d <= 30; d++ {
				now := t0.Add(time.Duration(d) * day)
				bad := append(every(now.Add(-400*day), time.Hour, 50), time.Time{}, time.Unix(0, 0))
				h.Observe(now, bad)
			}
		}, 0.4, 1.0, 0, t0},
		{"one restructure re-issuing 100 old items", func(h *History) {
			pollRegularly(h, 7*day, day, 60*day, 10)
			h.Observe(t0.Add(61*day), every(t0.Add(-300*day), day, 100))
		}, 0.12, 0.2, 0, time.Time{}},
		{"clock going back changes nothing", func(h *History) {
			pollRegularly(h, day, day, 30*day, 10)
			before := *h
			h.Observe(t0.Add(-day), every(t0, time.Hour, 10))
			h.Observe(h.LastPoll, every(h.LastPoll, time.Hour, 10))
			if *h != before {
				panic("history changed")
			}
		}, 0.9, 1.1, 0, t0.Add(30 * day)},
		{"never polled: the prior", func(h *History) {}, PriorPosts / PriorDays, PriorPosts / PriorDays, 0, time.Time{}},
		{"empty first page", func(h *History) { h.Observe(t0, nil) }, PriorPosts / PriorDays, PriorPosts / PriorDays, 1, time.Time{}},
		{"an unset clock is ignored", func(h *History) { h.Observe(time.Time{}, every(t0, day, 10)) }, PriorPosts / PriorDays, PriorPosts / PriorDays, 0, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h History
			tc.run(&h)
			if r := h.Rate(); !(r >= tc.lo && r <= tc.hi) {
				t.Errorf("Rate = %.4g a day, want [%.4g, %.4g] (%+v)", r, tc.lo, tc.hi, h)
			}
			if tc.idle >= 0 && h.Idle != tc.idle {
				t.Errorf("Idle = %d, want %d", h.Idle, tc.idle)
			}
			if !tc.lastPost.IsZero() && !h.LastPost.Equal(tc.lastPost) {
				t.Errorf("LastPost = %v, want %v", h.LastPost, tc.lastPost)
			}
			checkBounds(t, &h)
		})
	}
}

// checkBounds is what every History must satisfy, whatever it was fed.
func checkBounds(t *testing.T, h *History) {
	t.Helper()
	if !(h.Count >= 0 && h.Count <= maxCount) {
		t.Errorf("Count %v out of bounds", h.Count)
	}
	if !(h.Exposure >= 0 && h.Exposure <= memoryDays) {
		t.Errorf("Exposure %v out of bounds", h.Exposure)
	}
	if r := h.Rate(); !(r >= MinRate && r <= MaxRate) || math.IsNaN(r) {
		t.Errorf("Rate %v out of bounds", r)
	}
	if h.Idle < 0 || h.Polls < 0 {
		t.Errorf("negative counters %d, %d", h.Idle, h.Polls)
	}
	if !h.LastPost.IsZero() && h.LastPost.After(h.LastPoll) {
		t.Errorf("LastPost %v after LastPoll %v", h.LastPost, h.LastPoll)
	}
}

// A busy feed read only through Observe looks as slow as its page is
// short; ObserveOverflow is what lets the schedule find out.
func TestHistoryOverflowMatters(t *testing.T) {
	var plain, over History
	plain.Observe(t0, every(t0, day/40, 10))
	over.Observe(t0, every(t0, day/40, 10))
	for d := 1; d <= 60; d++ {
		now := t0.Add(time.Duration(d) * day)
		page := every(now, day/40, 10)
		plain.Observe(now, page)
		over.ObserveOverflow(now, page)
	}
	if p, o := plain.Rate(), over.Rate(); !(p < 11 && o > 30) {
		t.Errorf("Observe rate %.1f, ObserveOverflow rate %.1f; want ≈10 and ≈40", p, o)
	}
}

func TestHistoryText(t *testing.T) {
	var h History
	pollRegularly(&h, day/3, 5*time.Hour, 20*day, 10)
	b, err := h.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 80 {
		t.Errorf("text form %d bytes, want a short column: %s", len(b), b)
	}
	var g History
	if err := g.UnmarshalText(b); err != nil {
		t.Fatal(err)
	}
	if g.Count != h.Count || g.Exposure != h.Exposure || g.Idle != h.Idle || g.Polls != h.Polls ||
		g.LastPoll.Unix() != h.LastPoll.Unix() || g.LastPost.Unix() != h.LastPost.Unix() {
		t.Errorf("round trip:\n%+v\n%+v", h, g)
	}
	var z History
	if b, _ := z.MarshalText(); string(b) != "h1 0 0 - - 0 0" {
		t.Errorf("zero history = %q", b)
	}
	if err := g.UnmarshalText(nil); err != nil || g != (History{}) {
		t.Errorf("empty text: %v %+v", err, g)
	}
	for _, bad := range []string{
		"h2 0 0 - - 0 0", "h1 0 0 - - 0", "h1 -1 0 - - 0 0", "h1 NaN 0 - - 0 0", "h1 0 61 - - 0 0",
		"h1 0 Inf - - 0 0", "h1 0 0 x - 0 0", "h1 0 0 - 999999999999 0 0", "h1 0 0 - - -1 0",
		"h1 0 0 - - 0 9999999999", "h1  0 0 - - 0 0", " h1 0 0 - - 0 0",
	} {
		if err := g.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("UnmarshalText(%q) accepted: %+v", bad, g)
		}
	}
}
