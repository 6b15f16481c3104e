package config

import "strings"

// suggest returns " (did you mean X?)" for a name close to a real one, since
// an unknown key is nearly always a typo or the env variable's full name.
func suggest(name string) string {
	if p, ok := lookup(strings.TrimPrefix(name, EnvPrefix)); ok {
		return " (did you mean " + p.name + "?)"
	}
	best, bestDist := "", 3 // further than two edits is a guess, not a typo
	for _, p := range table {
		if d := editDistance(name, p.name); d < bestDist {
			best, bestDist = p.name, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
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
