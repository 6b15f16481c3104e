package store_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
)

// An expiry stored under a longer ROBOTS_TTL or ROBOTS_GUESS_TTL is cut to
// the check plus the setting now in force when a new process reads it, so
// a lower setting takes effect on the next run (issue 18): the unreachable
// guess a first run stored for six hours lasts ten minutes under
// ROBOTS_GUESS_TTL=10m. An expiry already within the bound stands, and a
// cache that is not told the settings leaves every expiry as stored.
func TestRobotsCacheBoundsStoredExpiry(t *testing.T) {
	checked := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	stored := map[string]fetch.RobotsEntry{
		"https://file.example:443": {Verdict: robots.Verdict{State: robots.StateParsed, File: robots.Parse(nil), TTL: 24 * time.Hour},
			Checked: checked, Expires: checked.Add(24 * time.Hour)},
		"https://refused.example:443": {Verdict: robots.Verdict{State: robots.StateRefused, TTL: 24 * time.Hour},
			Checked: checked, Expires: checked.Add(24 * time.Hour)},
		"https://down.example:443": {Verdict: robots.Verdict{State: robots.StateUnreachable, TTL: 6 * time.Hour},
			Checked: checked, Expires: checked.Add(6 * time.Hour), UnreachableSince: checked},
		"https://nofile.example:443": {Verdict: robots.Verdict{State: robots.StateNoFile, TTL: 6 * time.Hour},
			Checked: checked, Expires: checked.Add(6 * time.Hour)},
		"https://soon.example:443": {Verdict: robots.Verdict{State: robots.StateUnreachable, TTL: 6 * time.Hour},
			Checked: checked, Expires: checked.Add(30 * time.Second), UnreachableSince: checked},
	}
	st := &robotsStore{}
	writer := store.NewRobotsCache(st, store.RobotsCacheOptions{})
	for o, e := range stored {
		writer.Put(context.Background(), o, e)
	}
	tests := []struct {
		name string
		opts store.RobotsCacheOptions
		want map[string]time.Duration // expiry after checked
	}{
		{"lower settings", store.RobotsCacheOptions{Bound: true, TTL: time.Hour, GuessTTL: 10 * time.Minute}, map[string]time.Duration{
			"https://file.example:443": time.Hour, "https://refused.example:443": time.Hour,
			"https://down.example:443": 10 * time.Minute, "https://nofile.example:443": 10 * time.Minute,
			"https://soon.example:443": 30 * time.Second}},
		{"zero: asked again at once", store.RobotsCacheOptions{Bound: true}, map[string]time.Duration{
			"https://file.example:443": 0, "https://refused.example:443": 0, "https://down.example:443": 0,
			"https://nofile.example:443": 0, "https://soon.example:443": 0}},
		{"higher settings", store.RobotsCacheOptions{Bound: true, TTL: 48 * time.Hour, GuessTTL: 12 * time.Hour}, map[string]time.Duration{
			"https://file.example:443": 24 * time.Hour, "https://refused.example:443": 24 * time.Hour,
			"https://down.example:443": 6 * time.Hour, "https://nofile.example:443": 6 * time.Hour,
			"https://soon.example:443": 30 * time.Second}},
		{"not bound", store.RobotsCacheOptions{TTL: time.Hour, GuessTTL: 10 * time.Minute}, map[string]time.Duration{
			"https://file.example:443": 24 * time.Hour, "https://refused.example:443": 24 * time.Hour,
			"https://down.example:443": 6 * time.Hour, "https://nofile.example:443": 6 * time.Hour,
			"https://soon.example:443": 30 * time.Second}},
	}
	for _, tc := range tests {
		reader := store.NewRobotsCache(st, tc.opts) // a new process: nothing in memory
		for o, d := range tc.want {
			e, ok := reader.Get(context.Background(), o)
			if !ok {
				t.Fatalf("%s: %s missing", tc.name, o)
			}
			if got := e.Expires.Sub(checked); got != d {
				t.Errorf("%s: %s expires %v after its check, want %v", tc.name, o, got, d)
			}
			if e.Verdict.TTL > stored[o].Verdict.TTL {
				t.Errorf("%s: %s TTL %v grew", tc.name, o, e.Verdict.TTL)
			}
			if e.Verdict.State != stored[o].Verdict.State || !e.Checked.Equal(checked) {
				t.Errorf("%s: %s read back as %s checked %v", tc.name, o, e.Verdict.State, e.Checked)
			}
		}
	}
}
