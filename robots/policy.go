package robots

import "time"

// State is how a robots.txt fetch ended, as far as obeying it goes. The
// strings are stable: they are stored and exported.
type State string

const (
	StateParsed      State = "parsed"      // 2xx: the file's own rules
	StateRefused     State = "refused"     // 401/403: the site said no to us; disallow all
	StateNoFile      State = "no-file"     // other 4xx, or too many redirects: no rules, allow all
	StateRedirect    State = "redirect"    // 3xx: follow Location and decide again
	StateUnreachable State = "unreachable" // 5xx, 429, 408 or a network failure: crawling paused
	StateStaleCopy   State = "stale-copy"  // unreachable, but a copy younger than MaxCopyAge is obeyed
	StateAbandoned   State = "abandoned"   // unreachable for longer than MaxCopyAge: treated as no file
)

// MaxRedirects is how many redirects a robots.txt fetch follows (RFC 9309
// §2.3.1.2) before the file is taken to be unavailable.
const MaxRedirects = 5

// MaxCopyAge is how long a previously fetched file stays good to obey while
// the site is unreachable, and how long an unreachable site with no copy is
// kept paused before it is treated as having no file (RFC 9309 §2.3.1.4).
const MaxCopyAge = 30 * 24 * time.Hour

// Fetch is what became of one attempt to read robots.txt.
type Fetch struct {
	Status    int   // HTTP status; 0 when Err is set
	Err       error // timeout, DNS or connection failure
	Body      []byte
	Redirects int // redirects already followed to reach this response
}

// Copy is the last file a site served with a 2xx status, and when.
type Copy struct {
	File      *File
	FetchedAt time.Time
}

// TTLs are how long each kind of answer is kept before robots.txt is asked
// again: answers the site gave (a file, a refusal) and guesses (no file, an
// unreachable site). RFC 9309 §2.4 asks that a file be kept no longer than
// 24 hours; a guess is best kept shorter, so that a site back from an outage
// is read again soon. corpusbot sets them from ROBOTS_TTL and
// ROBOTS_GUESS_TTL.
type TTLs struct {
	Answer time.Duration // for StateParsed and StateRefused
	Guess  time.Duration // for StateNoFile, StateUnreachable, StateStaleCopy and StateAbandoned
}

// Verdict is what to obey after a fetch, and for how long.
type Verdict struct {
	State State
	File  *File         // the file to obey, for StateParsed and StateStaleCopy; nil otherwise
	TTL   time.Duration // keep this verdict this long; 0 for StateRedirect
}

// For is what the crawler with product token agent obeys under this verdict.
func (v Verdict) For(agent string) *Rules {
	switch {
	case v.File != nil:
		return v.File.For(agent)
	case v.State == StateNoFile || v.State == StateAbandoned:
		return AllowAll()
	}
	return DisallowAll()
}

// Decide applies the fetch-status rules of RFC 9309 §2.3.1, made stricter in
// one place: 401 and 403 are refusals, not an absence of rules. last is the
// newest 2xx copy (nil if none); unreachableSince is when the current run of
// failures began (zero if this fetch is the first failure).
func Decide(f Fetch, last *Copy, unreachableSince, now time.Time, ttl TTLs) Verdict {
	switch s := f.Status; {
	case f.Err == nil && s >= 200 && s < 300:
		return Verdict{State: StateParsed, File: Parse(f.Body), TTL: ttl.Answer}
	case f.Err == nil && s >= 300 && s < 400:
		if f.Redirects >= MaxRedirects {
			return Verdict{State: StateNoFile, TTL: ttl.Guess}
		}
		return Verdict{State: StateRedirect}
	case f.Err == nil && (s == 401 || s == 403):
		return Verdict{State: StateRefused, TTL: ttl.Answer}
	case f.Err == nil && s >= 400 && s < 500 && s != 429 && s != 408:
		return Verdict{State: StateNoFile, TTL: ttl.Guess}
	}
	// 5xx, 429 (a server too busy to answer has told us nothing, as Google
	// reads it), 408 (the server gave up waiting for our request: a fault
	// that says try later, like the others, not an absence of rules), any
	// other status, and every transport failure.
	if last != nil && now.Sub(last.FetchedAt) < MaxCopyAge {
		return Verdict{State: StateStaleCopy, File: last.File, TTL: ttl.Guess}
	}
	if !unreachableSince.IsZero() && now.Sub(unreachableSince) >= MaxCopyAge {
		return Verdict{State: StateAbandoned, TTL: ttl.Guess}
	}
	return Verdict{State: StateUnreachable, TTL: ttl.Guess}
}
