package store

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// RobotsCache is fetch.RobotsCache kept in a Store, with a memory layer in
// front: the fetcher asks it on every request, and parsing a stored file
// each time would cost more than the request. The memory layer is filled
// from the store on first use of an origin, so a restarted process obeys
// what the last one read instead of asking robots.txt again. It holds the
// DefaultRobotsMemory origins used last: one it has let go is read back
// from the store, never from the network, so memory follows the sites in
// flight rather than every site ever seen.
type RobotsCache struct {
	store robotsStore
	log   *slog.Logger
	mem   *RobotsMemory
	ttls  *robots.TTLs // nil: stored expiries stand
	agent string       // "": origins are recorded by the crawl alone
}

// robotsStore is what a RobotsCache asks of the store.
type robotsStore interface {
	Robots(ctx context.Context, origin string) (RobotsRecord, error)
	PutRobots(ctx context.Context, r RobotsRecord) error
	UpdateOriginStanding(ctx context.Context, o model.Origin) error
}

// RobotsCacheOptions are a RobotsCache's settings.
type RobotsCacheOptions struct {
	Log *slog.Logger // nil: slog.Default (logging.OrDefault)
	// Bound: an entry read from the store expires no later than its check
	// plus TTL (ROBOTS_TTL, for a file or a 401/403 the site gave) or
	// GuessTTL (ROBOTS_GUESS_TTL, for a guess), as they are set now, so
	// that a lower setting takes effect on the next run rather than when
	// the expiries stored under the old one pass. Without it (a cache that
	// does not know the settings) stored expiries stand.
	Bound         bool
	TTL, GuessTTL time.Duration
	// Agent, when set, is the product token the crawler obeys: every entry
	// put also updates its origin's standing (state, check, whether the
	// file blocks Agent from the whole site), so that a source's state
	// (blocked, unreachable) follows each read of robots.txt, not only the
	// one at discovery.
	Agent string
}

// DefaultRobotsMemory is how many origins the memory layer of a
// RobotsCache holds: more than the sites a crawl has in flight at once (a
// site asked every few seconds must not be read back from the store each
// time), few enough to stay small (an entry with a short parsed file is
// about 1 KiB).
const DefaultRobotsMemory = 16384

// NewRobotsCache builds the cache over st.
func NewRobotsCache(st robotsStore, o RobotsCacheOptions) *RobotsCache {
	c := &RobotsCache{store: st, log: logging.OrDefault(o.Log), mem: NewRobotsMemory(DefaultRobotsMemory), agent: o.Agent}
	if o.Bound {
		c.ttls = &robots.TTLs{Answer: max(o.TTL, 0), Guess: max(o.GuessTTL, 0)}
	}
	return c
}

var _ fetch.RobotsCache = (*RobotsCache)(nil)

// Get implements fetch.RobotsCache.
func (c *RobotsCache) Get(ctx context.Context, origin string) (fetch.RobotsEntry, bool) {
	if e, ok := c.mem.Get(ctx, origin); ok {
		return e, true
	}
	r, err := c.store.Robots(ctx, origin)
	if err != nil {
		if !errors.Is(err, model.ErrNotFound) {
			c.log.Warn("robots cache read failed", "origin", origin, "err", err)
		}
		return fetch.RobotsEntry{}, false
	}
	e := entryOf(r)
	if c.ttls != nil {
		e = BoundExpiry(e, *c.ttls)
	}
	c.mem.Put(ctx, origin, e)
	return e, true
}

// BoundExpiry is e with its expiry cut to its check plus the TTL its state
// is cached for under ttls (ttls.Answer for a file or a 401/403 the site
// gave, ttls.Guess for a guess: no file, unreachable, a stale copy): an
// entry stored under a longer setting lasts no longer than the setting
// now in force says.
func BoundExpiry(e fetch.RobotsEntry, ttls robots.TTLs) fetch.RobotsEntry {
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

// Put implements fetch.RobotsCache.
func (c *RobotsCache) Put(ctx context.Context, origin string, e fetch.RobotsEntry) {
	c.mem.Put(ctx, origin, e)
	if err := c.store.PutRobots(ctx, recordOf(origin, e)); err != nil {
		c.log.Warn("robots cache write failed", "origin", origin, "err", err)
	}
	if c.agent == "" {
		return
	}
	o := model.Origin{Origin: origin, State: string(e.Verdict.State), Checked: e.Checked, Blocked: e.BlocksAll(c.agent)}
	if err := c.store.UpdateOriginStanding(ctx, o); err != nil {
		c.log.Warn("origin standing write failed", "origin", origin, "err", err)
	}
}

// RobotsMemory is a fetch.RobotsCache that holds at most a fixed number of
// origins, letting go of the one used longest ago: the memory layer in front
// of a store, where a forgotten origin costs a read of the store. Safe for
// concurrent use. (fetch.MemoryRobots, the only copy in a test or tool,
// keeps every origin instead.)
type RobotsMemory struct {
	mu   sync.Mutex
	max  int
	m    map[string]*robotsNode
	used robotsNode // sentinel of a ring: used.next is the newest, used.prev the oldest
}

type robotsNode struct {
	origin     string
	entry      fetch.RobotsEntry
	prev, next *robotsNode
}

// NewRobotsMemory returns an empty memory of at most size origins (at
// least one).
func NewRobotsMemory(size int) *RobotsMemory {
	r := &RobotsMemory{max: max(size, 1)}
	r.used.prev, r.used.next = &r.used, &r.used
	return r
}

// Get returns the entry for origin and marks it used.
func (r *RobotsMemory) Get(ctx context.Context, origin string) (fetch.RobotsEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.m[origin]
	if !ok {
		return fetch.RobotsEntry{}, false
	}
	r.front(n)
	return n.entry, true
}

// Put stores the entry for origin, letting go of the oldest origin if the
// memory is full.
func (r *RobotsMemory) Put(ctx context.Context, origin string, e fetch.RobotsEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.m[origin]; ok {
		n.entry = e
		r.front(n)
		return
	}
	if r.m == nil {
		r.m = make(map[string]*robotsNode)
	}
	if len(r.m) >= r.max {
		old := r.used.prev
		r.unlink(old)
		delete(r.m, old.origin)
	}
	n := &robotsNode{origin: origin, entry: e}
	r.m[origin] = n
	r.front(n)
}

// Len is how many origins the memory holds.
func (r *RobotsMemory) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// front moves n (linked or not) to the newest place.
func (r *RobotsMemory) front(n *robotsNode) {
	if n.next != nil {
		r.unlink(n)
	}
	n.prev, n.next = &r.used, r.used.next
	r.used.next.prev = n
	r.used.next = n
}

func (r *RobotsMemory) unlink(n *robotsNode) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
}

func recordOf(origin string, e fetch.RobotsEntry) RobotsRecord {
	r := RobotsRecord{Origin: origin, State: string(e.Verdict.State), TTL: e.Verdict.TTL, Checked: e.Checked, Expires: e.Expires,
		UnreachableSince: e.UnreachableSince, ETag: e.ETag, LastModified: e.LastModified}
	if e.Verdict.File != nil {
		r.File, r.HasFile = e.Verdict.File.String(), true
	}
	if e.Last != nil && e.Last.File != nil {
		r.LastFile, r.HasLast, r.LastFetched = e.Last.File.String(), true, e.Last.FetchedAt
	}
	return r
}

func entryOf(r RobotsRecord) fetch.RobotsEntry {
	e := fetch.RobotsEntry{
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
