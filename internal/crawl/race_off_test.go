//go:build !race

package crawl_test

const raceEnabled = false
