package main

import (
	"os"
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

// TestConfigFlagEverywhere: every command that reads settings takes
// --config, the same flag with the same help; those that read none say so
// or are plainly settings-free, and a settings file given to one that reads
// settings is read (a bad one is refused).
func TestConfigFlagEverywhere(t *testing.T) {
	readsNone := map[string]bool{"sitemap parse": true, "demo": true, "version": true}
	want := ""
	for _, c := range commands() {
		out, _, _ := runCLI(t, nil, nil, append(strings.Fields(c.name), "--help")...)
		usage, ok := helpFlags(out)["config"]
		if readsNone[c.name] {
			if ok {
				t.Errorf("%s reads no settings but lists -config", c.name)
			}
			continue
		}
		if !ok {
			t.Errorf("%s reads settings and lacks -config", c.name)
			continue
		}
		if want == "" {
			want = usage
		}
		if usage != want {
			t.Errorf("%s: -config %q, elsewhere %q", c.name, usage, want)
		}
	}
	if out, _, _ := runCLI(t, nil, nil, "sitemap", "parse", "--help"); !strings.Contains(out, "reads no settings") {
		t.Errorf("sitemap parse --help does not say it reads no settings: %q", out)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("MIN_GAP = \"0s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	robots := writeRobots(t, sampleRobots)
	for _, args := range [][]string{
		{"robots", "check", "--config", bad, robots, "https://a.example/x"},
		{"feed", "parse", "--config", bad, robots},
	} {
		if _, errOut, code := runCLI(t, nil, nil, args...); code == 0 || !strings.Contains(errOut, "MIN_GAP") {
			t.Errorf("%v: %d %q, want the bad file refused", args[:2], code, errOut)
		}
	}
}
