package config

import (
	"slices"
	"strings"
)

// suggest returns " (did you mean X?)" for a name close to a real one, since
// an unknown key is nearly always a typo or the env variable's full name.
func suggest(name string) string {
	if best, ok := nearest(name); ok {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// nearest is the setting name meant by name: itself without EnvPrefix, or
// the one within two edits of it (the closest, the first in the table on a
// tie).
func nearest(name string) (string, bool) {
	if p, ok := lookup(strings.TrimPrefix(name, EnvPrefix)); ok {
		return p.name, true
	}
	best, bestDist := "", 3 // further than two edits is a guess, not a typo
	for _, p := range table {
		if d := editDistance(name, p.name); d < bestDist {
			best, bestDist = p.name, d
		}
	}
	return best, best != ""
}

// testVariables are the CORPUSBOT_ variables of the project's own test
// suites and benchmarks (CORPUSBOT_TEST_POSTGRES, CORPUSBOT_BENCH_SITES,
// the child processes' markers …): not settings, and no typo.
var testVariables = []string{"TEST_", "BENCH_", "UPDATE_GOLDEN", "ARTIFACTS", "CHROMIUM"}

// UnknownEnv warns, one line each, of the CORPUSBOT_ variables in environ
// ("NAME=value" pairs, as os.Environ gives them) that name no setting and
// so are ignored, with the setting meant when one is close: a misspelt
// variable is as silent as a missing one otherwise. The test suites' own
// variables are left out.
func UnknownEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		rest, ok := strings.CutPrefix(name, EnvPrefix)
		if !ok || rest == "" {
			continue
		}
		if _, known := lookup(rest); known || strings.HasSuffix(rest, "_CHILD") ||
			slices.ContainsFunc(testVariables, func(p string) bool { return strings.HasPrefix(rest, p) }) {
			continue
		}
		w := name + " is not a setting and is ignored"
		if best, ok := nearest(rest); ok {
			w += " (did you mean " + EnvPrefix + best + "?)"
		}
		out = append(out, w)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// editDistance is the Levenshtein distance over bytes; setting names are ASCII.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
