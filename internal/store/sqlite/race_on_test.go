//go:build race

package sqlite

// raceOn relaxes timing thresholds: the race detector slows SQLite's Go
// code several times over.
const raceOn = true
