package push

import (
	"strconv"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Modes of hub.mode.
const (
	ModeSubscribe   = "subscribe"
	ModeUnsubscribe = "unsubscribe"
	ModeDenied      = "denied"
)

// AcceptsIntent reports whether a verification of intent (§5.3: hub.mode,
// hub.topic) is one we asked for and still want, so that its challenge is
// echoed; otherwise the callback answers 404. A subscribe is confirmed
// while requested and while active (a renewal re-sends subscribe); an
// unsubscribe only while we are unsubscribing. The topic must be the one
// we asked for, byte for byte.
func AcceptsIntent(state, topic, mode, gotTopic string) bool {
	if gotTopic != topic || topic == "" {
		return false
	}
	switch mode {
	case ModeSubscribe:
		return state == model.SubscriptionRequested || state == model.SubscriptionActive
	case ModeUnsubscribe:
		return state == model.SubscriptionUnsubscribing
	}
	return false
}

// Leases: what we ask for, and what we believe of a hub's answer.
const (
	// DefaultLease is the hub.lease_seconds we ask for: ten days, about
	// what common hubs grant (and cap to) anyway.
	DefaultLease = 10 * 24 * time.Hour
	// MinLease and MaxLease bound the lease a hub states: a lease of
	// seconds would renew without pause, a lease of years outlives any
	// promise a hub keeps.
	MinLease = time.Hour
	MaxLease = 365 * 24 * time.Hour
)

// ParseLease reads hub.lease_seconds (required with subscribe, §5.3):
// asked when missing or unreadable, clamped to [MinLease, MaxLease].
func ParseLease(raw string, asked time.Duration) time.Duration {
	n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || n <= 0 || n > int64(MaxLease/time.Second) {
		if err == nil && n > 0 {
			return MaxLease
		}
		return asked
	}
	return min(max(time.Duration(n)*time.Second, MinLease), MaxLease)
}

// RenewAt is when a lease verified at verified is renewed: ahead of its
// expiry by a tenth of the lease or a day, whichever is more (a day
// covers a crawler that runs once a day), but never more than half the
// lease, so that a short lease is not renewed the moment it starts.
func RenewAt(verified time.Time, lease time.Duration) time.Time {
	margin := min(max(lease/10, 24*time.Hour), lease/2)
	return verified.Add(lease - margin)
}

// Retry is how long after the n-th failed request in a row (n ≥ 1) a
// subscription is asked for again: an hour, doubling, at most a week. A
// hub that keeps failing costs one request a week.
func Retry(n int) time.Duration {
	d := time.Hour
	for i := 1; i < n && d < 7*24*time.Hour; i++ {
		d *= 2
	}
	return min(d, 7*24*time.Hour)
}

// VerifyTimeout is how long a requested subscription waits for its
// verification of intent before it is asked for again: hubs verify in
// seconds, or (asynchronously) within minutes.
const VerifyTimeout = 24 * time.Hour
