package config

import (
	"slices"
	"testing"
)

// A CORPUSBOT_ variable that names no setting is warned of, with the
// setting meant when one is within two edits; settings, other variables
// and the test suites' own are not.
func TestUnknownEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		environ []string
		want    []string
	}{
		{"none", []string{"PATH=/bin", "HOME=/root"}, nil},
		{"settings", []string{"CORPUSBOT_MIN_GAP=1s", "CORPUSBOT_DB=x.db", "CORPUSBOT_LOG_LEVEL=debug"}, nil},
		{"empty value is still named", []string{"CORPUSBOT_MIN_GAPP="},
			[]string{"CORPUSBOT_MIN_GAPP is not a setting and is ignored (did you mean CORPUSBOT_MIN_GAP?)"}},
		{"typo", []string{"CORPUSBOT_MIN_GAPP=1s", "PATH=/bin"},
			[]string{"CORPUSBOT_MIN_GAPP is not a setting and is ignored (did you mean CORPUSBOT_MIN_GAP?)"}},
		{"transposed", []string{"CORPUSBOT_ROBTOS_TTL=1h"},
			[]string{"CORPUSBOT_ROBTOS_TTL is not a setting and is ignored (did you mean CORPUSBOT_ROBOTS_TTL?)"}},
		{"doubled prefix", []string{"CORPUSBOT_CORPUSBOT_DB=x"},
			[]string{"CORPUSBOT_CORPUSBOT_DB is not a setting and is ignored (did you mean CORPUSBOT_DB?)"}},
		{"nothing near", []string{"CORPUSBOT_DATABASE_URL=postgres://x"},
			[]string{"CORPUSBOT_DATABASE_URL is not a setting and is ignored"}},
		{"test suites' own", []string{"CORPUSBOT_TEST_POSTGRES=postgres://x", "CORPUSBOT_BENCH_SITES=10", "CORPUSBOT_CRASH_CHILD=1",
			"CORPUSBOT_UPDATE_GOLDEN=1", "CORPUSBOT_ARTIFACTS=/tmp", "CORPUSBOT_CHROMIUM=/bin/chromium"}, nil},
		{"prefix alone", []string{"CORPUSBOT_=1"}, nil},
		{"lower case is another variable", []string{"corpusbot_min_gap=1s"}, nil},
	} {
		if got := UnknownEnv(tc.environ); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
