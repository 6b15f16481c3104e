package schedule

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// FuzzHistory feeds arbitrary stored text and an arbitrary sequence of polls
// (times and entry dates from the fuzzer's bytes, including zero, ancient,
// future and out-of-order ones). Nothing may panic, a text that is accepted
// must round-trip, and after every call the History stays within its bounds,
// still serialises into text that UnmarshalText accepts, and yields an
// interval within [Floor, Ceiling].
func FuzzHistory(f *testing.F) {
	var seeded History
	pollRegularly(&seeded, day/3, 5*time.Hour, 20*day, 10)
	txt, _ := seeded.MarshalText()
	f.Add([]byte(""), []byte{})
	f.Add(txt, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("h1 0 0 - - 0 0"), []byte("\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("h1 1e6 60 253402300799 253402300799 2147483647 2147483647"), []byte("\x80\x00\x00\x00\x00\x00\x00\x00"))
	a := DefaultPolicy().Calibrate([]float64{0.01, 0.1, 1, 10}, 1)
	f.Fuzz(func(t *testing.T, text, ops []byte) {
		var h History
		if err := h.UnmarshalText(text); err != nil {
			return
		}
		b, _ := h.MarshalText()
		var g History
		if err := g.UnmarshalText(b); err != nil || g != h {
			t.Fatalf("round trip of %q: %q, %v, %+v", text, b, err, g)
		}
		// Each op: 8 bytes of poll offset (seconds from t0, signed), 1 byte
		// of overflow flag and entry count, then 8 bytes per entry offset.
		for len(ops) >= 9 {
			poll := at(int64(binary.LittleEndian.Uint64(ops)))
			flags := ops[8]
			ops = ops[9:]
			var dates []time.Time
			for range int(flags & 0x7f) {
				if len(ops) < 8 {
					break
				}
				dates = append(dates, at(int64(binary.LittleEndian.Uint64(ops))))
				ops = ops[8:]
			}
			before := h
			if flags&0x80 != 0 {
				h.ObserveOverflow(poll, dates)
			} else {
				h.Observe(poll, dates)
			}
			checkFuzzBounds(t, &h, &before, poll)
			if iv := a.Interval(h.Rate()); iv < a.Floor || iv > a.Ceiling {
				t.Fatalf("interval %v out of bounds", iv)
			}
			b, _ := h.MarshalText()
			var g History
			if err := g.UnmarshalText(b); err != nil {
				t.Fatalf("state %+v does not survive the store: %q: %v", h, b, err)
			}
		}
	})
}

// at maps any int64 to a time: small values near t0 (where real polls are),
// the zero value for 0, anything else as seconds from t0 saturated to the
// time.Time range.
func at(x int64) time.Time {
	if x == 0 {
		return time.Time{}
	}
	if x == math.MinInt64 {
		x++
	}
	return t0.Add(time.Duration(max(min(x, math.MaxInt64/int64(time.Second)), -math.MaxInt64/int64(time.Second))) * time.Second)
}

func checkFuzzBounds(t *testing.T, h, before *History, poll time.Time) {
	t.Helper()
	if !(h.Count >= 0 && h.Count <= maxCount) || !(h.Exposure >= 0 && h.Exposure <= memoryDays) {
		t.Fatalf("sums out of bounds: %+v", h)
	}
	if r := h.Rate(); !(r >= MinRate && r <= MaxRate) {
		t.Fatalf("rate %v", r)
	}
	if h.Idle < 0 || h.Polls < 0 {
		t.Fatalf("counters %+v", h)
	}
	if h.LastPoll.Before(before.LastPoll) {
		t.Fatalf("LastPoll went back: %v → %v", before.LastPoll, h.LastPoll)
	}
	if h.LastPost.After(before.LastPost) && h.LastPost.After(poll) {
		t.Fatalf("LastPost %v after the poll %v", h.LastPost, poll)
	}
	if *h != *before && !h.LastPoll.Equal(poll) {
		t.Fatalf("state changed by a poll at %v that was not recorded: %+v", poll, h)
	}
}
