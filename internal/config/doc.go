// Package config holds the crawler's settings and reads them from, lowest to
// highest precedence: built-in defaults, a TOML config file, the environment
// (CORPUSBOT_<NAME>) and command-line flags.
//
// Every setting is described once, in one table, so that the three sources
// parse and validate through the same code and a page describing the crawler
// can list every setting with its value. Values are checked against bounds
// chosen so that a setting cannot switch politeness off: MIN_GAP must stay
// above zero, ROBOTS_TTL cannot exceed the 24 hours RFC 9309 allows, and so on.
// The intervals and TTLs (ROBOTS_TTL, FEED_INTERVAL, REFUSAL_RECHECK, ...)
// accept any duration from 0 (always due, never cached), so that a
// simulation can drive the binary through days in seconds; a value under
// its production floor is legal but listed by Settings.Warnings for the
// caller to show. Those only add requests; they never shorten a pause.
//
// The package keeps no global state and reads no environment of its own; the
// caller passes the lookup function, which keeps tests hermetic.
package config
