package postgres

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"
)

// DefaultClaimTTL is how long a claim on due work holds when SetClaims was
// not called: long enough for one batch, short enough that a dead
// worker's work is taken over the same day.
const DefaultClaimTTL = 15 * time.Minute

// claims is who this DB claims due work as. PostsDue and FeedsDue mark
// the rows they return claimed_by owner until now+ttl; SavePage and
// UpdateFeed/FeedRead release them. A worker that dies leaves its claims
// to lapse.
type claims struct {
	mu    sync.Mutex
	owner string
	ttl   time.Duration
	now   func() time.Time
}

func defaultClaims() *claims {
	b := make([]byte, 4)
	rand.Read(b)
	host, _ := os.Hostname()
	return &claims{owner: fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b)), ttl: DefaultClaimTTL, now: time.Now}
}

// SetClaims sets the name this DB claims work as (unique per worker;
// "" keeps the generated one), the claims' lifetime and the clock (nil:
// time.Now). Call it before use.
func (d *DB) SetClaims(owner string, ttl time.Duration, now func() time.Time) {
	d.claims.mu.Lock()
	defer d.claims.mu.Unlock()
	if owner != "" {
		d.claims.owner = owner
	}
	if ttl > 0 {
		d.claims.ttl = ttl
	}
	if now != nil {
		d.claims.now = now
	}
}

// ClaimOwner is the name this DB claims work as.
func (d *DB) ClaimOwner() string {
	d.claims.mu.Lock()
	defer d.claims.mu.Unlock()
	return d.claims.owner
}

func (c *claims) stamp() (owner string, now, until int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now()
	return c.owner, t.UnixNano(), t.Add(c.ttl).UnixNano()
}
