package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// compressed lists every interval and TTL with its production floor and
// its hard upper bound. A setting added to the table with a warning floor
// and not listed here fails TestCompressibleSettings, and so does one
// listed here that lost its floor.
var compressed = []struct {
	name      string
	floor, hi time.Duration
}{
	{"DB_WAIT", time.Minute, 24 * time.Hour},
	{"ROBOTS_TTL", time.Minute, 24 * time.Hour},
	{"ROBOTS_GUESS_TTL", time.Minute, 24 * time.Hour},
	{"REFUSAL_RECHECK", time.Hour, 90 * 24 * time.Hour},
	{"FEED_INTERVAL", time.Minute, 30 * 24 * time.Hour},
	{"FEED_MAX_INTERVAL", time.Hour, 90 * 24 * time.Hour},
	{"SITEMAP_INTERVAL", time.Minute, 30 * 24 * time.Hour},
	{"SITEMAP_RECHECK", time.Hour, 90 * 24 * time.Hour},
	{"DISALLOWED_RECHECK", time.Hour, 90 * 24 * time.Hour},
	{"RUN_INTERVAL", time.Minute, 7 * 24 * time.Hour},
	{"PUSH_SAFETY_POLL", time.Hour, 90 * 24 * time.Hour},
	{"RETRY_WINDOW", time.Hour, 90 * 24 * time.Hour},
}

func TestCompressibleSettings(t *testing.T) {
	var want, got []string
	for _, c := range compressed {
		want = append(want, c.name)
	}
	for _, p := range table {
		// A value of 0 is below any floor: only compressible settings
		// both accept it and warn about it.
		var s Settings
		if p.apply(&s, "0s") == nil && p.warning(s) != "" {
			got = append(got, p.name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("settings that take 0 with a warning: %v\nwant %v", got, want)
	}
}

func TestCompressibleBounds(t *testing.T) {
	for _, c := range compressed {
		p, ok := lookup(c.name)
		if !ok {
			t.Fatalf("%s is not in the table", c.name)
		}
		floor := formatDuration(c.floor)
		below := func(v string) string { return c.name + "=" + v + " is below " + floor + ": for simulations only" }
		tests := []struct {
			raw      string
			wantErr  string // "" when accepted
			wantWarn string // "" when accepted quietly
		}{
			{raw: "0", wantWarn: below("0s")},
			{raw: "0s", wantWarn: below("0s")},
			{raw: "1ns", wantWarn: below("1ns")},
			{raw: "10s", wantWarn: below("10s")},
			{raw: formatDuration(c.floor - time.Second), wantWarn: below(formatDuration(c.floor - time.Second))},
			{raw: floor},
			{raw: formatDuration(c.hi)},
			{raw: formatDuration(c.hi + time.Second), wantErr: "must be at most " + formatDuration(c.hi)},
			{raw: "-1s", wantErr: `negative duration "-1s"`},
		}
		for _, tt := range tests {
			s := Defaults()
			err := p.apply(&s, tt.raw)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("%s=%s: %v, want it accepted", c.name, tt.raw, err)
				continue
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("%s=%s: error %v, want %q", c.name, tt.raw, err, tt.wantErr)
				continue
			case tt.wantErr != "":
				continue
			}
			if got := s.Warnings(); !slices.Equal(got, nonEmpty(tt.wantWarn)) {
				t.Errorf("%s=%s: warnings %q, want %q", c.name, tt.raw, got, tt.wantWarn)
			}
		}
		// The help says what is enforced, floor included.
		wantHelp := "from 0s to " + formatDuration(c.hi) + ", under " + floor + " for simulations only"
		if !strings.HasSuffix(p.help, wantHelp) {
			t.Errorf("%s help %q does not end with %q", c.name, p.help, wantHelp)
		}
		if !strings.Contains(p.help, "(0: ") && !strings.Contains(p.help, "(0, ") && !strings.Contains(p.help, "; 0: ") {
			t.Errorf("%s help %q does not say what 0 means", c.name, p.help)
		}
	}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// The pauses are not intervals: 0 would switch politeness off, so they
// stay above 0 and draw no warning when small (the operator's call).
func TestPausesAreNotCompressible(t *testing.T) {
	for _, name := range []string{"MIN_GAP", "CATALOGUE_PAGE_DELAY"} {
		p, _ := lookup(name)
		s := Defaults()
		if err := p.apply(&s, "0s"); err == nil || !strings.Contains(err.Error(), "must be more than 0") {
			t.Errorf("%s=0s: %v, want refused", name, err)
		}
		if err := p.apply(&s, "1ms"); err != nil {
			t.Errorf("%s=1ms: %v", name, err)
		}
		if w := s.Warnings(); w != nil {
			t.Errorf("%s=1ms: warnings %q", name, w)
		}
	}
}

func TestWarningsOnLoad(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  map[string]string
		args []string
		want []string
	}{
		{name: "defaults"},
		{name: "production values", env: map[string]string{"CORPUSBOT_ROBOTS_TTL": "1m", "CORPUSBOT_REFUSAL_RECHECK": "1h"},
			args: []string{"--feed-interval=30m"}},
		{name: "the issue's simulation",
			env: map[string]string{
				"CORPUSBOT_ROBOTS_TTL": "10s", "CORPUSBOT_FEED_INTERVAL": "0s",
				"CORPUSBOT_REFUSAL_RECHECK": "0s", "CORPUSBOT_DISALLOWED_RECHECK": "0s",
			},
			// In the table's order, not the environment's.
			want: []string{
				"ROBOTS_TTL=10s is below 1m: for simulations only",
				"REFUSAL_RECHECK=0s is below 1h: for simulations only",
				"FEED_INTERVAL=0s is below 1m: for simulations only",
				"DISALLOWED_RECHECK=0s is below 1h: for simulations only",
			}},
		{name: "once however many sources give it", file: "testdata/simulation.toml",
			env:  map[string]string{"CORPUSBOT_ROBOTS_TTL": "20s"},
			args: []string{"--robots-ttl=30s"},
			want: []string{"ROBOTS_TTL=30s is below 1m: for simulations only", "FEED_INTERVAL=0s is below 1m: for simulations only"}},
		{name: "a later source raises it", file: "testdata/simulation.toml",
			args: []string{"--robots-ttl=2h"},
			want: []string{"FEED_INTERVAL=0s is below 1m: for simulations only"}},
		{name: "whole seconds", env: map[string]string{"CORPUSBOT_SITEMAP_INTERVAL": "5"},
			want: []string{"SITEMAP_INTERVAL=5s is below 1m: for simulations only"}},
		{name: "just under an hour", args: []string{"--push-safety-poll", "59m59s", "--run-interval", "59s"},
			want: []string{"RUN_INTERVAL=59s is below 1m: for simulations only", "PUSH_SAFETY_POLL=59m59s is below 1h: for simulations only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(envOf(tt.env), tt.file, flagsOf(t, tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Warnings(); !slices.Equal(got, tt.want) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// The values a simulation sets must survive the trip through the crawler
// page and back, as production ones do (TestEntriesRoundTrip).
func TestCompressedRoundTrip(t *testing.T) {
	env := map[string]string{}
	for i, c := range compressed {
		env[EnvPrefix+c.name] = fmt.Sprintf("%dms", i*250) // 0s first
	}
	s, err := Load(envOf(env), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	back := map[string]string{}
	for _, e := range s.Entries() {
		back[e.Env] = e.Value
	}
	again, err := Load(envOf(back), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if again != s {
		t.Errorf("round trip\n got  %+v\n want %+v", again, s)
	}
	if len(s.Warnings()) != len(compressed) {
		t.Errorf("%d warnings, want one for each of %d settings: %q", len(s.Warnings()), len(compressed), s.Warnings())
	}
}
