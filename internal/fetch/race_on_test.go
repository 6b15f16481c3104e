//go:build race

package fetch_test

// raceEnabled scales the load test down under the race detector, which
// slows each request tenfold, so that the suite stays within its minute.
const raceEnabled = true
