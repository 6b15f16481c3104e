package crawl

import (
	"testing"
	"time"
)

// A progress line never claims an ETA of 0s while sites are left: until
// one has finished, the rate (and so the time left) is unknown.
func TestProgressETAText(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    ProgressSnapshot
		want string
	}{
		{"nothing finished yet", ProgressSnapshot{SitesDue: 1, Elapsed: 30 * time.Second}, "unknown"},
		{"nothing finished of many", ProgressSnapshot{SitesDue: 2000, SitesInFlight: 14, Elapsed: time.Minute}, "unknown"},
		{"half done", ProgressSnapshot{SitesDue: 4, SitesDone: 2, Elapsed: 10 * time.Second}, "10s"},
		{"all done", ProgressSnapshot{SitesDue: 3, SitesDone: 3, Elapsed: 10 * time.Second}, "0s"},
		{"nothing due", ProgressSnapshot{}, "0s"},
	} {
		if got := tc.s.etaText(); got != tc.want {
			t.Errorf("%s: eta %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A round's summary never names a next round in the past: a round that
// took longer than the cadence is followed at once.
func TestNextRoundAt(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		cadence time.Duration
		now     time.Time
		want    time.Time
	}{
		{"quick round", time.Hour, start.Add(5 * time.Minute), start.Add(time.Hour)},
		{"round as long as the cadence", time.Hour, start.Add(time.Hour), start.Add(time.Hour)},
		{"round longer than the cadence", time.Hour, start.Add(90 * time.Minute), start.Add(90 * time.Minute)},
		{"cadence 0", 0, start.Add(time.Second), start.Add(time.Second)},
	} {
		if got := nextRoundAt(start, tc.cadence, tc.now); !got.Equal(tc.want) {
			t.Errorf("%s: next round %v, want %v", tc.name, got, tc.want)
		}
	}
}
