package model

import "time"

// The values below are what the store keeps for the fetcher between runs
// and between the workers of a cluster. The fetcher owns their meaning
// (package fetch: the robots.txt cache, the 403 refusal list, the sites'
// waits); the store only reads and writes them.

// RobotsRecord is one origin's robots.txt entry in storable form: the
// parsed files as robots.File.String() writes them back (parsing that text
// decides every URL the same way).
type RobotsRecord struct {
	Origin           string
	State            string // a robots.State
	TTL              time.Duration
	File             string // "" with HasFile false: no file to obey
	HasFile          bool
	Checked          time.Time
	Expires          time.Time
	LastFile         string // the newest 2xx copy
	HasLast          bool
	LastFetched      time.Time
	UnreachableSince time.Time
	ETag             string
	LastModified     string
}

// RefusalState is what the 403 refusal list keeps per site.
type RefusalState struct {
	Consecutive403 int       // 403 answers in a row
	Served         bool      // the site has ever answered a request with a success
	Refused        bool      // on the refusal list
	LastAsked      time.Time // when a listed site was last asked
}

// SiteWait is a site's back-off as it is stored beyond the process: the
// widened gap and the answer that set it, the Retry-After in force, and
// the next permitted request they give.
type SiteWait struct {
	Site  string
	Gap   time.Duration // added pause after the last error
	End   time.Time     // end of the answer that set Gap
	Until time.Time     // Retry-After: not before this
	Next  time.Time     // the site's next permitted request
}
