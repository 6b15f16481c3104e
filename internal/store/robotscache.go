package store

import (
	"context"
	"errors"
	"log/slog"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/robots"
)

// RobotsCache is fetch.RobotsCache kept in a Store, with a memory layer in
// front: the fetcher asks it on every request, and parsing a stored file
// each time would cost more than the request. The memory layer is filled
// from the store on first use of an origin, so a restarted process obeys
// what the last one read instead of asking robots.txt again.
type RobotsCache struct {
	store Store
	log   *slog.Logger
	mem   *fetch.MemoryRobots
}

// NewRobotsCache builds the cache over st; log may be nil.
func NewRobotsCache(st Store, log *slog.Logger) *RobotsCache {
	if log == nil {
		log = slog.Default()
	}
	return &RobotsCache{store: st, log: log, mem: fetch.NewMemoryRobots()}
}

var _ fetch.RobotsCache = (*RobotsCache)(nil)

// Get implements fetch.RobotsCache.
func (c *RobotsCache) Get(origin string) (fetch.RobotsEntry, bool) {
	if e, ok := c.mem.Get(origin); ok {
		return e, true
	}
	r, err := c.store.Robots(context.Background(), origin)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			c.log.Warn("robots cache read failed", "origin", origin, "err", err)
		}
		return fetch.RobotsEntry{}, false
	}
	e := entryOf(r)
	c.mem.Put(origin, e)
	return e, true
}

// Put implements fetch.RobotsCache.
func (c *RobotsCache) Put(origin string, e fetch.RobotsEntry) {
	c.mem.Put(origin, e)
	if err := c.store.PutRobots(context.Background(), recordOf(origin, e)); err != nil {
		c.log.Warn("robots cache write failed", "origin", origin, "err", err)
	}
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
