package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A compressed interval is accepted and said once on stderr, whatever the
// command; stdout stays exactly the command's output.
func TestSettingsWarnings(t *testing.T) {
	robotsFile := writeRobots(t, sampleRobots)
	db := filepath.Join(t.TempDir(), "c.db")
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		wantOut    string
		wantErrOut string
		logs       bool // the command logs on stderr after the warnings
	}{
		{name: "production values are quiet",
			env:     map[string]string{"CORPUSBOT_ROBOTS_TTL": "1h"},
			args:    []string{"robots", "check", robotsFile, "https://example.org/x"},
			wantOut: "DISALLOWED https://example.org/x\n"},
		{name: "a pure command that reads the settings",
			env:     map[string]string{"CORPUSBOT_ROBOTS_TTL": "10s", "CORPUSBOT_FEED_INTERVAL": "0s"},
			args:    []string{"robots", "check", robotsFile, "https://example.org/x"},
			wantOut: "DISALLOWED https://example.org/x\n",
			wantErrOut: "corpusbot: warning: ROBOTS_TTL=10s is below 1m: for simulations only\n" +
				"corpusbot: warning: FEED_INTERVAL=0s is below 1m: for simulations only\n"},
		{name: "a crawl command",
			env:        map[string]string{"CORPUSBOT_DB": db, "CORPUSBOT_REFUSAL_RECHECK": "0s"},
			args:       []string{"sources", "add", "https://example.org/"},
			wantOut:    "added https://example.org/\n",
			wantErrOut: "corpusbot: warning: REFUSAL_RECHECK=0s is below 1h: for simulations only\n"},
		{name: "run, a flag over the env",
			env:  map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "empty.db"), "CORPUSBOT_RUN_INTERVAL": "1s"},
			args: []string{"run", "--once", "--run-interval=0s", "--disallowed-recheck", "59m"},
			logs: true,
			wantErrOut: "corpusbot: warning: DISALLOWED_RECHECK=59m is below 1h: for simulations only\n" +
				"corpusbot: warning: RUN_INTERVAL=0s is below 1m: for simulations only\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, nil, tt.env, tt.args...)
			if tt.logs {
				// The warnings come first, before any log line, and once.
				if strings.HasPrefix(errOut, tt.wantErrOut) && strings.Count(errOut, "warning") == strings.Count(tt.wantErrOut, "warning") {
					errOut = tt.wantErrOut
				}
			}
			if code != 0 || out != tt.wantOut || errOut != tt.wantErrOut {
				t.Errorf("exit %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", code, out, tt.wantOut, errOut, tt.wantErrOut)
			}
		})
	}
	// Beyond the hard bound it is still an error, and no warning precedes it.
	_, errOut, code := runCLI(t, nil, map[string]string{"CORPUSBOT_ROBOTS_TTL": "25h", "CORPUSBOT_FEED_INTERVAL": "0s"},
		"robots", "check", robotsFile, "https://example.org/x")
	want := "corpusbot robots check: setting ROBOTS_TTL (from env CORPUSBOT_ROBOTS_TTL): must be at most 24h\n"
	if code != exitFailure || errOut != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
}
