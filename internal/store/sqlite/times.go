package sqlite

import "time"

// Times are stored as Unix nanoseconds, 0 for the zero time, so that they
// order and compare as integers in indexes.
func ts(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func tm(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
