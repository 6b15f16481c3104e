package config

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestFileErrors(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"unknown_key.toml", `config file testdata/unknown_key.toml: unknown setting "min_gapp" (did you mean MIN_GAP?)`},
		{"unknown_prefixed.toml", `config file testdata/unknown_prefixed.toml: unknown setting "CORPUSBOT_MIN_GAP" (did you mean MIN_GAP?)`},
		{"unknown_table.toml", `config file testdata/unknown_table.toml: unknown setting "crawler"`},
		{"duplicate_key.toml", `config file testdata/duplicate_key.toml: setting MIN_GAP is given twice, as "min_gap" and "MIN-GAP"`},
		{"syntax_error.toml", `config file testdata/syntax_error.toml line 3: `},
		{"bad_duration.toml", `setting MIN_GAP (from config file testdata/bad_duration.toml): invalid duration "abc"`},
		{"negative_duration.toml", `setting ROBOTS_TTL (from config file testdata/negative_duration.toml): negative duration -5 seconds`},
		{"wrong_type.toml", `setting MIN_GAP (from config file testdata/wrong_type.toml): want a duration string or whole seconds, got boolean true`},
		{"bad_size.toml", `setting BODY_MAX (from config file testdata/bad_size.toml): invalid size "5 parsecs": unknown unit "parsecs"`},
		{"small_size.toml", `setting BODY_MAX (from config file testdata/small_size.toml): must be at least 1KiB`},
		{"bad_int.toml", `setting CATALOGUE_MAX_PAGES (from config file testdata/bad_int.toml): must be at least 1`},
		{"float_int.toml", `setting CATALOGUE_MAX_PAGES (from config file testdata/float_int.toml): want an integer, got float 2.5`},
		{"bad_bool.toml", `setting ALLOW_PRIVATE (from config file testdata/bad_bool.toml): invalid boolean "yes"`},
		{"bad_user_agent.toml", `setting USER_AGENT (from config file testdata/bad_user_agent.toml): "Mozilla" must start with a product token`},
		{"bad_db.toml", `setting DB (from config file testdata/bad_db.toml): unsupported database URL scheme "mysql"`},
		{"missing.toml", `config file: open testdata/missing.toml: no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(nil, "testdata/"+tt.file, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant    %s...", err, tt.want)
			}
		})
	}
}

func TestKeySpellings(t *testing.T) {
	for _, key := range []string{"min_gap", "MIN_GAP", "min-gap", "Min-Gap", "MIN-GAP"} {
		file := t.TempDir() + "/c.toml"
		writeFile(t, file, key+" = 7\n")
		s, err := Load(nil, file, nil)
		if err != nil || s.MinGap.Seconds() != 7 {
			t.Errorf("key %q: MinGap = %v, %v", key, s.MinGap, err)
		}
	}
}

func TestSuggest(t *testing.T) {
	for name, want := range map[string]string{
		"MIN_GAPP":              " (did you mean MIN_GAP?)",
		"BODYMAX":               " (did you mean BODY_MAX?)",
		"ROBOT_TTL":             " (did you mean ROBOTS_TTL?)",
		"CORPUSBOT_BODY_MAX":    " (did you mean BODY_MAX?)",
		"COLOUR":                "",
		"CATALOGUE_PAGE_DELAYS": " (did you mean CATALOGUE_PAGE_DELAY?)",
	} {
		if got := suggest(name); got != want {
			t.Errorf("suggest(%q) = %q, want %q", name, got, want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func quote(s string) string { return strconv.Quote(s) }
