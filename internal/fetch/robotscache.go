package fetch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// RobotsEntry is what is known of one origin's robots.txt.
type RobotsEntry struct {
	Verdict          robots.Verdict
	Checked          time.Time    // when robots.txt was last asked
	Expires          time.Time    // Checked + the verdict's TTL
	Last             *robots.Copy // newest 2xx copy, obeyed for 30 days while unreachable
	UnreachableSince time.Time    // start of the current run of failures; zero when reachable
	ETag             string       // validators of Last, for a conditional re-read
	LastModified     string
}

// BlocksAll reports whether the robots.txt this entry obeys (a file served,
// or its last copy kept while the origin is unreachable) disallows agent
// (a product token) the whole site: the homepage path "/" is disallowed.
// A 401/403 on robots.txt is not that: no file was served.
func (e RobotsEntry) BlocksAll(agent string) bool {
	return e.Verdict.File != nil && !e.Verdict.File.For(agent).Allowed("/")
}

// RobotsStore is where robots.txt entries outlive the process (a store.DB,
// in SQL alone): what to remember, for how long, and what an entry means
// for its origin's standing are RobotsCache's.
type RobotsStore interface {
	// Robots is the stored entry of origin; model.ErrNotFound for an
	// origin never stored.
	Robots(ctx context.Context, origin string) (model.RobotsRecord, error)
	// PutRobots stores r, replacing its origin's entry.
	PutRobots(ctx context.Context, r model.RobotsRecord) error
	// UpdateOriginStanding records what the newest entry says of an origin
	// the crawl already knows (its state, check and whether it blocks the
	// crawler from the whole site).
	UpdateOriginStanding(ctx context.Context, o model.Origin) error
}

// RobotsHolds is what a RobotsStore shared by the workers of a cluster
// adds, so that robots.txt is read once per origin per TTL for all of
// them: a hold on an origin's refresh, one worker at a time, with an
// expiry so that a dead worker's hold passes.
type RobotsHolds interface {
	// HoldRobotsRefresh takes origin's refresh for holder until the given
	// time, unless another holder's hold is still live at now; holding it
	// already counts (and is extended).
	HoldRobotsRefresh(ctx context.Context, origin, holder string, now, until time.Time) (bool, error)
	// ReleaseRobotsRefresh ends holder's hold on origin, if any.
	ReleaseRobotsRefresh(ctx context.Context, origin, holder string) error
}

// RobotsHold is a cluster's hold on each origin's robots.txt refresh.
type RobotsHold struct {
	Holds RobotsHolds // nil: this process alone reads and writes the store's entries
	// TTL bounds a hold and a waiter's wait (default 30s); Poll is how
	// often a waiter looks again (default 50ms).
	TTL, Poll time.Duration
}

// DefaultRobotsMemory is how many origins a RobotsCache over a store holds
// in memory: more than the sites a crawl has in flight at once (a site
// asked every few seconds must not be read back from the store each time),
// few enough to stay small (an entry with a short parsed file is about
// 1 KiB).
const DefaultRobotsMemory = 16384

// RobotsCacheOptions are a RobotsCache's settings.
type RobotsCacheOptions struct {
	Clock Clock        // the hold's waits and a cluster's freshness; default RealClock
	Log   *slog.Logger // nil: slog.Default (logging.OrDefault)
	// Bound: an entry read from the store expires no later than its check
	// plus TTL (ROBOTS_TTL, for a file or a 401/403 the site gave) or
	// GuessTTL (ROBOTS_GUESS_TTL, for a guess), as they are set now, so
	// that a lower setting takes effect on the next run rather than when
	// the expiries stored under the old one pass. Without it stored
	// expiries stand.
	Bound         bool
	TTL, GuessTTL time.Duration
	// Agent, when set, is the product token the crawler obeys: every entry
	// put also updates its origin's standing in the store (state, check,
	// whether the file blocks Agent from the whole site), so that a
	// source's state (blocked, unreachable) follows each read of
	// robots.txt, not only the one at discovery.
	Agent string
	Hold  RobotsHold
	// Memory is how many origins are held in memory: 0 is
	// DefaultRobotsMemory over a store, and every origin without one.
	Memory int
}

// RobotsCache keeps a RobotsEntry per origin ("https://host:443") for the
// fetcher, which asks it on every request. Without a store it is the only
// copy and keeps every origin ever put (forgetting one would cost that
// origin a second robots.txt request). Over a RobotsStore it is a memory
// of the origins used last in front of the store, filled from the store on
// first use of an origin: a restarted process obeys what the last one read
// instead of asking robots.txt again, and an origin let go of is read back
// from the store, never from the network, so memory follows the sites in
// flight rather than every site ever seen.
//
// With a RobotsHold (a cluster), memory answers only while its entry is
// fresh, since another worker may have stored a newer one. A stale or
// missing entry is looked up in the store; when the store's is stale too,
// the worker holds the origin's refresh: the holder gets the stale entry
// back, so its fetcher reads robots.txt and Puts the result, which ends
// the hold; any other worker waits (up to the hold's TTL) for that result
// instead of reading robots.txt itself, and when the holder dies, the
// hold expires and the next worker reads. Safe for concurrent use.
type RobotsCache struct {
	store  RobotsStore // nil: the memory is the only copy
	mem    *robotsLRU
	clock  Clock
	log    *slog.Logger
	ttls   *robots.TTLs // nil: stored expiries stand
	agent  string       // "": origins' standing is recorded by the crawl alone
	hold   RobotsHold
	holder string // this worker's name in the store's holds
}

// NewRobotsCache builds the cache over st (nil: in memory only).
func NewRobotsCache(st RobotsStore, o RobotsCacheOptions) *RobotsCache {
	size := o.Memory
	if size == 0 && st != nil {
		size = DefaultRobotsMemory
	}
	c := &RobotsCache{store: st, mem: newRobotsLRU(size), clock: o.Clock, log: logging.OrDefault(o.Log), agent: o.Agent, hold: o.Hold}
	if c.clock == nil {
		c.clock = RealClock{}
	}
	if o.Bound {
		c.ttls = &robots.TTLs{Answer: max(o.TTL, 0), Guess: max(o.GuessTTL, 0)}
	}
	if c.hold.Holds != nil {
		c.hold.TTL, c.hold.Poll = or(c.hold.TTL, 30*time.Second), or(c.hold.Poll, 50*time.Millisecond)
		c.holder = holderName()
	}
	return c
}

// holderName names this process among a cluster's workers: host, process
// and a random part, so that two processes never share a hold.
func holderName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Get returns the entry for origin, false when none is known.
func (c *RobotsCache) Get(ctx context.Context, origin string) (RobotsEntry, bool) {
	if e, ok := c.mem.get(origin); ok && (c.hold.Holds == nil || c.clock.Now().Before(e.Expires)) {
		return e, true
	}
	if c.store == nil {
		return RobotsEntry{}, false
	}
	if c.hold.Holds != nil {
		return c.getHeld(ctx, origin)
	}
	e, ok := c.load(ctx, origin)
	if ok {
		c.mem.put(origin, e)
	}
	return e, ok
}

// getHeld is Get in a cluster: the store's entry if fresh, else the
// origin's refresh held for this worker, or waited for while another
// holds it.
func (c *RobotsCache) getHeld(ctx context.Context, origin string) (RobotsEntry, bool) {
	deadline := c.clock.Now().Add(c.hold.TTL)
	for {
		e, ok := c.load(ctx, origin)
		now := c.clock.Now()
		if ok && now.Before(e.Expires) {
			c.mem.put(origin, e)
			return e, true
		}
		held, err := c.hold.Holds.HoldRobotsRefresh(ctx, origin, c.holder, now, now.Add(c.hold.TTL))
		if err != nil {
			c.log.Warn("robots refresh hold failed", "origin", origin, "err", err)
			return e, ok
		}
		if held || !now.Before(deadline) {
			return e, ok // ours to read (or we waited long enough)
		}
		if c.clock.Sleep(ctx, c.hold.Poll) != nil { // Ctrl-C ends the wait
			return e, ok
		}
	}
}

// load reads origin's entry from the store, its expiry bounded by the
// TTLs now set.
func (c *RobotsCache) load(ctx context.Context, origin string) (RobotsEntry, bool) {
	r, err := c.store.Robots(ctx, origin)
	if err != nil {
		if !errors.Is(err, model.ErrNotFound) {
			c.log.Warn("robots cache read failed", "origin", origin, "err", err)
		}
		return RobotsEntry{}, false
	}
	e := robotsEntryOf(r)
	if c.ttls != nil {
		e = boundExpiry(e, *c.ttls)
	}
	return e, true
}

// Put stores the entry for origin: in memory, in the store with its
// origin's standing, and, in a cluster, ends this worker's hold on its
// refresh.
func (c *RobotsCache) Put(ctx context.Context, origin string, e RobotsEntry) {
	c.mem.put(origin, e)
	if c.store == nil {
		return
	}
	if err := c.store.PutRobots(ctx, robotsRecordOf(origin, e)); err != nil {
		c.log.Warn("robots cache write failed", "origin", origin, "err", err)
	}
	if c.agent != "" {
		o := model.Origin{Origin: origin, State: string(e.Verdict.State), Checked: e.Checked, Blocked: e.BlocksAll(c.agent)}
		if err := c.store.UpdateOriginStanding(ctx, o); err != nil {
			c.log.Warn("origin standing write failed", "origin", origin, "err", err)
		}
	}
	if c.hold.Holds != nil {
		if err := c.hold.Holds.ReleaseRobotsRefresh(context.WithoutCancel(ctx), origin, c.holder); err != nil {
			c.log.Warn("robots refresh hold release failed", "origin", origin, "err", err)
		}
	}
}

// boundExpiry is e with its expiry cut to its check plus the TTL its state
// is cached for under ttls (ttls.Answer for a file or a 401/403 the site
// gave, ttls.Guess for a guess: no file, unreachable, a stale copy): an
// entry stored under a longer setting lasts no longer than the setting
// now in force says.
func boundExpiry(e RobotsEntry, ttls robots.TTLs) RobotsEntry {
	ttl := ttls.Guess
	switch e.Verdict.State {
	case robots.StateParsed, robots.StateRefused:
		ttl = ttls.Answer
	}
	if bound := e.Checked.Add(ttl); e.Expires.After(bound) {
		e.Expires = bound
		e.Verdict.TTL = min(e.Verdict.TTL, ttl)
	}
	return e
}

// robotsRecordOf is e in storable form: its files as text.
func robotsRecordOf(origin string, e RobotsEntry) model.RobotsRecord {
	r := model.RobotsRecord{Origin: origin, State: string(e.Verdict.State), TTL: e.Verdict.TTL, Checked: e.Checked, Expires: e.Expires,
		UnreachableSince: e.UnreachableSince, ETag: e.ETag, LastModified: e.LastModified}
	if e.Verdict.File != nil {
		r.File, r.HasFile = e.Verdict.File.String(), true
	}
	if e.Last != nil && e.Last.File != nil {
		r.LastFile, r.HasLast, r.LastFetched = e.Last.File.String(), true, e.Last.FetchedAt
	}
	return r
}

// robotsEntryOf is the entry a stored record holds, its files parsed.
func robotsEntryOf(r model.RobotsRecord) RobotsEntry {
	e := RobotsEntry{
		Verdict: robots.Verdict{State: robots.State(r.State), TTL: r.TTL},
		Checked: r.Checked, Expires: r.Expires, UnreachableSince: r.UnreachableSince, ETag: r.ETag, LastModified: r.LastModified,
	}
	if r.HasFile {
		e.Verdict.File = robots.Parse([]byte(r.File))
	}
	if r.HasLast {
		e.Last = &robots.Copy{File: robots.Parse([]byte(r.LastFile)), FetchedAt: r.LastFetched}
	}
	return e
}
