package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/store"
)

// RobotsCache is fetch.RobotsCache for a cluster: robots.txt is read once
// per origin per TTL for all the workers, not once per worker.
//
// A worker's memory answers while its entry is fresh; it holds the
// store.DefaultRobotsMemory origins used last, and one it has let go is
// looked up in the database again. A stale or missing
// entry is looked up in the database, where another worker may have stored
// a fresh one. When the database's is stale too, the worker holds the
// origin's refresh (a robots_claims row with an expiry): the holder gets
// the stale entry back, so its fetcher reads robots.txt and Puts the
// result, which ends the hold; any other worker waits (up to HoldTTL) for
// that result instead of reading robots.txt itself, and when the holder
// dies, the hold expires and the next worker reads.
type RobotsCache struct {
	db     *DB
	clock  fetch.Clock
	log    *slog.Logger
	opts   store.RobotsCacheOptions // the database's entries are read as store.RobotsCache reads them: bounded by the TTLs now set
	mem    *store.RobotsMemory
	holder string
	// HoldTTL bounds a refresh hold and a waiter's wait (default 30s);
	// Poll is how often a waiter looks again (default 50ms).
	HoldTTL, Poll time.Duration
}

// NewRobotsCache returns the cluster robots cache over db.
func NewRobotsCache(db *DB, clock fetch.Clock, o store.RobotsCacheOptions) *RobotsCache {
	o.Log = logging.OrDefault(o.Log)
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return &RobotsCache{db: db, clock: clock, log: o.Log, opts: o, mem: store.NewRobotsMemory(store.DefaultRobotsMemory),
		holder: fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b)), HoldTTL: 30 * time.Second, Poll: 50 * time.Millisecond}
}

var _ fetch.RobotsCache = (*RobotsCache)(nil)

// stored reads the database's entry; store.RobotsCache does the decoding
// and bounds its expiry (a fresh one each time, so that its own memory
// layer never answers).
func (c *RobotsCache) stored(ctx context.Context, origin string) (fetch.RobotsEntry, bool) {
	return store.NewRobotsCache(c.db, c.opts).Get(ctx, origin)
}

// Get implements fetch.RobotsCache.
func (c *RobotsCache) Get(ctx context.Context, origin string) (fetch.RobotsEntry, bool) {
	if e, ok := c.mem.Get(ctx, origin); ok && c.clock.Now().Before(e.Expires) {
		return e, true
	}
	deadline := c.clock.Now().Add(c.HoldTTL)
	for {
		e, ok := c.stored(ctx, origin)
		now := c.clock.Now()
		if ok && now.Before(e.Expires) {
			c.mem.Put(ctx, origin, e)
			return e, true
		}
		held, err := c.holdRefresh(ctx, origin, now)
		if err != nil {
			c.log.Warn("robots refresh hold failed", "origin", origin, "err", err)
			return e, ok
		}
		if held || !now.Before(deadline) {
			return e, ok // ours to read (or we waited long enough)
		}
		if c.clock.Sleep(ctx, c.Poll) != nil { // Ctrl-C ends the wait
			return e, ok
		}
	}
}

// holdRefresh takes origin's refresh for this worker unless another live
// one holds it; holding it already counts.
func (c *RobotsCache) holdRefresh(ctx context.Context, origin string, now time.Time) (bool, error) {
	r, err := c.db.db.ExecContext(ctx, `INSERT INTO robots_claims AS c (origin, holder, expires) VALUES ($1, $2, $3)
		ON CONFLICT (origin) DO UPDATE SET holder = $2, expires = $3 WHERE c.holder = $2 OR c.expires <= $4`,
		origin, c.holder, ts(now.Add(c.HoldTTL)), ts(now))
	if err != nil {
		return false, err
	}
	n, _ := r.RowsAffected()
	return n == 1, nil
}

// Put implements fetch.RobotsCache: the entry is stored for the cluster and
// this worker's hold, if any, ends.
func (c *RobotsCache) Put(ctx context.Context, origin string, e fetch.RobotsEntry) {
	c.mem.Put(ctx, origin, e)
	store.NewRobotsCache(c.db, c.opts).Put(ctx, origin, e)
	if _, err := c.db.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM robots_claims WHERE origin = $1 AND holder = $2`, origin, c.holder); err != nil {
		c.log.Warn("robots refresh hold release failed", "origin", origin, "err", err)
	}
}
