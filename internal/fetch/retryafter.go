package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter caps what a Retry-After header can ask of us: a site that
// asks for a week is asked again after a day.
const MaxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date
// (RFC 9110 §10.2.3), as a wait from now, capped at MaxRetryAfter. A date in
// the past is a wait of zero; ok is false when the value is neither.
func ParseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			// All digits but too long for uint64 is still "a very long time".
			if strings.Trim(v, "0123456789") == "" {
				return MaxRetryAfter, true
			}
			return 0, false
		}
		if n >= uint64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter, true
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(t.Sub(now), 0), MaxRetryAfter), true
}
