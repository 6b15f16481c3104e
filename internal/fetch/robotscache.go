package fetch

import (
	"context"
	"sync"
	"time"

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

// RobotsCache keeps RobotsEntry per origin ("https://host:443"). The
// in-memory MemoryRobots is one implementation; store.RobotsCache keeps the
// entries in the store, with a bounded memory layer in front.
type RobotsCache interface {
	Get(ctx context.Context, origin string) (RobotsEntry, bool)
	Put(ctx context.Context, origin string, e RobotsEntry)
}

// MemoryRobots is an in-memory RobotsCache, safe for concurrent use: the
// default for tests and tools. It keeps every origin ever put, since it is
// the only copy: forgetting one would cost that origin a second robots.txt
// request. A crawl of many sites uses a store-backed cache instead, whose
// memory layer may forget freely (a miss reads the store, not the network).
type MemoryRobots struct {
	mu sync.Mutex
	m  map[string]RobotsEntry
}

// NewMemoryRobots returns an empty cache.
func NewMemoryRobots() *MemoryRobots { return &MemoryRobots{m: make(map[string]RobotsEntry)} }

// Get returns the entry for origin.
func (c *MemoryRobots) Get(ctx context.Context, origin string) (RobotsEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[origin]
	return e, ok
}

// Put stores the entry for origin.
func (c *MemoryRobots) Put(ctx context.Context, origin string, e RobotsEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[origin] = e
}

// BlocksAll reports whether the robots.txt this entry obeys (a file served,
// or its last copy kept while the origin is unreachable) disallows agent
// (a product token) the whole site: the homepage path "/" is disallowed.
// A 401/403 on robots.txt is not that: no file was served.
func (e RobotsEntry) BlocksAll(agent string) bool {
	return e.Verdict.File != nil && !e.Verdict.File.For(agent).Allowed("/")
}
