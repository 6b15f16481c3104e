package schedule

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The text form is one short line, so the store keeps a History in one TEXT
// column without a schema of its own:
//
//	h1 <count> <exposure-days> <last-poll-unix> <last-post-unix> <idle> <polls>
//
// Times are Unix seconds, "-" for a zero time. Floats use the shortest form
// that round-trips exactly, so MarshalText∘UnmarshalText is the identity.
// The leading version lets a later estimator refuse, rather than misread, a
// history written by this one.
const textVersion = "h1"

// MarshalText implements encoding.TextMarshaler.
func (h History) MarshalText() ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, textVersion...)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, h.Count, 'g', -1, 64)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, h.Exposure, 'g', -1, 64)
	b = appendTime(append(b, ' '), h.LastPoll)
	b = appendTime(append(b, ' '), h.LastPost)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(h.Idle), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(h.Polls), 10)
	return b, nil
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, '-')
	}
	return strconv.AppendInt(b, t.Unix(), 10)
}

// UnmarshalText implements encoding.TextUnmarshaler. An empty text is the
// zero History (a feed never polled), so a new column can default to ”.
// Anything out of bounds is an error, never a History that could make the
// scheduler misbehave.
func (h *History) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*h = History{}
		return nil
	}
	f := strings.Split(string(text), " ")
	if len(f) != 7 || f[0] != textVersion {
		return errors.New("schedule: history is not h1 text")
	}
	var v History
	var err error
	if v.Count, err = boundedFloat(f[1], maxCount); err != nil {
		return fmt.Errorf("schedule: history count: %w", err)
	}
	if v.Exposure, err = boundedFloat(f[2], memoryDays); err != nil {
		return fmt.Errorf("schedule: history exposure: %w", err)
	}
	if v.LastPoll, err = parseTime(f[3]); err != nil {
		return fmt.Errorf("schedule: history last poll: %w", err)
	}
	if v.LastPost, err = parseTime(f[4]); err != nil {
		return fmt.Errorf("schedule: history last post: %w", err)
	}
	if v.Idle, err = boundedInt(f[5]); err != nil {
		return fmt.Errorf("schedule: history idle: %w", err)
	}
	if v.Polls, err = boundedInt(f[6]); err != nil {
		return fmt.Errorf("schedule: history polls: %w", err)
	}
	*h = v
	return nil
}

func boundedFloat(s string, hi float64) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if !(x >= 0 && x <= hi) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q out of [0, %g]", s, hi)
	}
	return x, nil
}

func boundedInt(s string) (int, error) {
	x, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, err
	}
	if x < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return int(x), nil
}

// 0001-01-01T00:00:01Z and 9999-12-31T23:59:59Z.
const minUnix, maxUnix = -62135596800 + 1, 253402300799

// Times are bounded to years 1–9999 so that they survive any store's
// timestamp type and time.Time arithmetic without overflow.
func parseTime(s string) (time.Time, error) {
	if s == "-" {
		return time.Time{}, nil
	}
	x, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	if x < minUnix || x > maxUnix {
		return time.Time{}, fmt.Errorf("%q out of range", s)
	}
	return time.Unix(x, 0).UTC(), nil
}
