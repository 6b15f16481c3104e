package store

import (
	"strings"
	"time"
)

// noNUL drops NUL characters, which PostgreSQL's text cannot hold (SQLite
// keeps them): a page whose text has one is stored without, instead of
// failing to save and so being fetched again on every run.
func noNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

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

// Nanos is how every backend stores a time: Unix nanoseconds, 0 for the
// zero time (the lease and the robots cache use it too).
func Nanos(t time.Time) int64 { return ts(t) }

// Time reads a time Nanos stored.
func Time(n int64) time.Time { return tm(n) }
