package fetch

import (
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
)

// An origin whose robots.txt could not be read is asked again first once
// the site's own wait allows, then on the retry schedule's later waits,
// counted from the first failure: never more often than the schedule, and
// never sooner than Retry-After; ROBOTS_GUESS_TTL caps every wait.
func TestRobotsRetry(t *testing.T) {
	s := config.Defaults() // 5 tries over 72 h: 30 s, ~10 min, ~3.5 h, ~2.9 days
	f := &Fetcher{s: s}
	sched := RetrySchedule{Attempts: s.RetryAttempts, Window: s.RetryWindow}
	second, _ := sched.Delay(2)
	third, _ := sched.Delay(3)
	since := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	ttl := s.RobotsGuessTTL
	tests := []struct {
		name                 string
		elapsed              time.Duration // since the run of failures began
		siteWait, retryAfter time.Duration
		want                 time.Duration
	}{
		{"first failure: the site's back-off", 0, 2 * time.Second, 0, 2 * time.Second},
		{"first failure: a Retry-After beyond the back-off", 0, 2 * time.Second, 20 * time.Second, 20 * time.Second},
		{"first failure: a site wait past the schedule's first", 0, time.Minute, 0, FirstRetry},
		{"first failure: a long Retry-After, capped by the guess TTL", 0, time.Second, 24 * time.Hour, ttl},
		{"second failure: the schedule's second wait", 2*time.Second + 200*time.Millisecond, 4 * time.Second, 0, second},
		{"third failure: the schedule's third wait, capped", second + 3*time.Second, 8 * time.Second, 0, min(third, ttl)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.robotsRetry(since, since.Add(tc.elapsed), tc.siteWait, tc.retryAfter, ttl); got != tc.want {
				t.Errorf("robotsRetry after %v: %v, want %v", tc.elapsed, got, tc.want)
			}
		})
	}
}
