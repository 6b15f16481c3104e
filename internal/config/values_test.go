package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		raw     any
		want    time.Duration
		wantErr string
	}{
		{raw: "1s", want: time.Second},
		{raw: "1h30m", want: 90 * time.Minute},
		{raw: "250ms", want: 250 * time.Millisecond},
		{raw: " 2s ", want: 2 * time.Second},
		{raw: "90", want: 90 * time.Second},
		{raw: "0", want: 0},
		{raw: int64(90), want: 90 * time.Second},
		{raw: int64(0), want: 0},
		{raw: "abc", wantErr: `invalid duration "abc"`},
		{raw: "1d", wantErr: `invalid duration "1d"`},
		{raw: "", wantErr: `invalid duration ""`},
		{raw: "-1s", wantErr: `negative duration "-1s"`},
		{raw: "-5", wantErr: `negative duration -5 seconds`},
		{raw: int64(-5), wantErr: `negative duration -5 seconds`},
		{raw: int64(1 << 62), wantErr: "too long"},
		{raw: 1.5, wantErr: "want a duration string or whole seconds, got float 1.5"},
		{raw: true, wantErr: "got boolean true"},
		{raw: map[string]any{"a": int64(1)}, wantErr: "got a table"},
	}
	for _, tt := range tests {
		got, err := parseDuration(tt.raw)
		checkParse(t, tt.raw, got, err, tt.want, tt.wantErr)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		raw     any
		want    int64
		wantErr string
	}{
		{raw: "100", want: 100},
		{raw: "100B", want: 100},
		{raw: "1KB", want: 1000},
		{raw: "512KiB", want: 512 << 10},
		{raw: "5MB", want: 5_000_000},
		{raw: "5MiB", want: 5 << 20},
		{raw: "1GB", want: 1_000_000_000},
		{raw: "1GiB", want: 1 << 30},
		{raw: "2TB", want: 2_000_000_000_000},
		{raw: "1TiB", want: 1 << 40},
		{raw: "5 MB", want: 5_000_000},
		{raw: "5mb", want: 5_000_000},
		{raw: "5mib", want: 5 << 20},
		{raw: "1.5KiB", want: 1536},
		{raw: "1.5MB", want: 1_500_000},
		{raw: int64(4096), want: 4096},
		{raw: int64(0), want: 0},
		{raw: "5M", wantErr: `unknown unit "M"`},
		{raw: "5 parsecs", wantErr: `unknown unit "parsecs"`},
		{raw: "MB", wantErr: `invalid size "MB"`},
		{raw: "", wantErr: `invalid size ""`},
		{raw: "-5MB", wantErr: `invalid size "-5MB"`},
		{raw: "1.2.3KB", wantErr: `invalid size "1.2.3KB"`},
		{raw: "1.5B", wantErr: "not a whole number of bytes"},
		{raw: "0.0001KB", wantErr: "not a whole number of bytes"},
		{raw: "99999999TB", wantErr: "too large"},
		{raw: int64(-1), wantErr: "negative size -1"},
		{raw: 5.5, wantErr: "got float 5.5"},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.raw)
		checkParse(t, tt.raw, got, err, tt.want, tt.wantErr)
	}
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		raw     any
		want    int
		wantErr string
	}{
		{raw: int64(200), want: 200},
		{raw: "200", want: 200},
		{raw: " 7 ", want: 7},
		{raw: "-3", want: -3},
		{raw: "2.5", wantErr: `invalid integer "2.5"`},
		{raw: "many", wantErr: `invalid integer "many"`},
		{raw: 2.5, wantErr: "want an integer, got float 2.5"},
		{raw: []any{int64(1)}, wantErr: "got a array"},
	}
	for _, tt := range tests {
		got, err := parseInt(tt.raw)
		checkParse(t, tt.raw, got, err, tt.want, tt.wantErr)
	}
}

func TestParseBool(t *testing.T) {
	tests := []struct {
		raw     any
		want    bool
		wantErr string
	}{
		{raw: true, want: true},
		{raw: false, want: false},
		{raw: "true", want: true},
		{raw: "TRUE", want: true},
		{raw: "false", want: false},
		{raw: "1", want: true},
		{raw: "0", want: false},
		{raw: "yes", wantErr: `invalid boolean "yes"`},
		{raw: "t", wantErr: `invalid boolean "t"`},
		{raw: int64(1), wantErr: "want true or false, got integer 1"},
	}
	for _, tt := range tests {
		got, err := parseBool(tt.raw)
		checkParse(t, tt.raw, got, err, tt.want, tt.wantErr)
	}
}

func TestParseString(t *testing.T) {
	if got, err := parseString("x.db"); err != nil || got != "x.db" {
		t.Errorf(`parseString("x.db") = %q, %v`, got, err)
	}
	if _, err := parseString(int64(3)); err == nil || err.Error() != "want a string, got integer 3" {
		t.Errorf("parseString(3) error = %v", err)
	}
}

func TestFormatRoundTrip(t *testing.T) {
	durations := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{time.Second, "1s"},
		{1500 * time.Millisecond, "1.5s"},
		{2 * time.Minute, "2m"},
		{90 * time.Minute, "1h30m"},
		{24 * time.Hour, "24h"},
		{time.Hour + time.Second, "1h0m1s"},
	}
	for _, tt := range durations {
		got := formatDuration(tt.d)
		if got != tt.want {
			t.Errorf("formatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
		if back, err := parseDuration(got); err != nil || back != tt.d {
			t.Errorf("parseDuration(%q) = %v, %v, want %v", got, back, err, tt.d)
		}
	}
	sizes := []struct {
		n    int64
		want string
	}{
		{0, "0B"},
		{100, "100B"},
		{1000, "1KB"},
		{1024, "1KiB"},
		{5_000_000, "5MB"},
		{5 << 20, "5MiB"},
		{1 << 30, "1GiB"},
		{3_000_000_000, "3GB"},
		{1 << 40, "1TiB"},
		{1025, "1025B"},
	}
	for _, tt := range sizes {
		got := formatSize(tt.n)
		if got != tt.want {
			t.Errorf("formatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if back, err := parseSize(got); err != nil || back != tt.n {
			t.Errorf("parseSize(%q) = %d, %v, want %d", got, back, err, tt.n)
		}
	}
}

func checkParse[T comparable](t *testing.T, raw any, got T, err error, want T, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("parse(%#v) error = %v, want one containing %q", raw, err, wantErr)
		}
		return
	}
	if err != nil || got != want {
		t.Errorf("parse(%#v) = %v, %v, want %v", raw, got, err, want)
	}
}
