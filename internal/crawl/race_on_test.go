//go:build race

package crawl_test

// raceEnabled skips the test that stores 3 × 50,000 URLs: the race detector
// slows the store's pure-Go SQLite some twentyfold (two minutes a
// sitemap), and it exercises sizes, not concurrency; package fetch reads
// the same sitemaps under the detector.
const raceEnabled = true
