package fetch_test

import (
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 120 * time.Second, true},
		{" 0 ", 0, true},
		{"86400", 24 * time.Hour, true},
		{"999999999999999999999999", 24 * time.Hour, true},
		{"Sun, 01 Mar 2026 12:02:00 GMT", 2 * time.Minute, true},
		{"Sunday, 01-Mar-26 12:02:00 GMT", 2 * time.Minute, true},
		{"Sun Mar  1 12:02:00 2026", 2 * time.Minute, true},
		{"Sat, 28 Feb 2026 12:00:00 GMT", 0, true},
		{"Fri, 01 Mar 2030 12:00:00 GMT", 24 * time.Hour, true},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		got, ok := fetch.ParseRetryAfter(c.in, now)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseRetryAfter(%q) = %v %v, want %v %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "Sun, 01 Mar 2026 12:02:00 GMT", "Sunday, 01-Mar-26 12:02:00 GMT", "x", "99999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := fetch.ParseRetryAfter(v, now)
		if d < 0 || d > fetch.MaxRetryAfter {
			t.Fatalf("%q: wait %v out of [0, a day]", v, d)
		}
		if !ok && d != 0 {
			t.Fatalf("%q: not ok but wait %v", v, d)
		}
	})
}
