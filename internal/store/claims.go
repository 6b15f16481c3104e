package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// DefaultClaimTTL is how long a claim on due work holds unless SetClaims
// says otherwise: long enough for one batch, short enough that a dead
// worker's work is taken over the same day.
const DefaultClaimTTL = 15 * time.Minute

// claims is who this DB claims due work as. Every "…Due" and "…To…"
// batch marks the rows it returns claimed_by owner until now+ttl, so that
// another worker asking at the same time is handed other rows; storing the
// work's result releases the claim, and a worker that dies leaves its
// claims to lapse. Rows are claimed in the database, not in memory, so the
// claim holds across processes and machines.
type claims struct {
	mu    sync.Mutex
	owner string
	ttl   time.Duration
	now   func() time.Time
	// changed wakes the renewal loop when SetClaims changes the lifetime.
	changed chan struct{}
}

func newClaims(owner string, ttl time.Duration) *claims {
	if owner == "" {
		b := make([]byte, 4)
		rand.Read(b)
		host, _ := os.Hostname()
		owner = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
	}
	if ttl <= 0 {
		ttl = DefaultClaimTTL
	}
	return &claims{owner: owner, ttl: ttl, now: time.Now, changed: make(chan struct{}, 1)}
}

// SetClaims sets the name this DB claims work as (unique per worker;
// "" keeps the current one), the claims' lifetime (0 keeps it) and the
// clock (nil: time.Now). Call it before use.
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
	select {
	case d.claims.changed <- struct{}{}:
	default:
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

// claimArgs are the first three arguments of every claiming query: $1 the
// owner, $2 now, $3 the claim's end; the query's own start at $4.
func (d *DB) claimArgs(args ...any) []any {
	owner, now, until := d.claims.stamp()
	return append([]any{owner, now, until}, args...)
}

// freeClaim is the condition that a row is not held by another live
// claimer (a released claim has claimed_until 0).
const freeClaim = `(claimed_by = $1 OR claimed_until < $2)`

// notPaused keeps the feeds, sitemaps and posts of paused sources (their
// owner opted out or paused them) out of every batch; it follows a
// condition, in tables with a source_id.
const notPaused = ` AND source_id NOT IN (SELECT id FROM sources WHERE paused <> 0)`

// claimQuery claims the rows of table whose ids choice selects (choice
// must end with its ORDER BY and LIMIT and test freeClaim itself) and
// returns cols of each. The order of the returned rows is not defined:
// callers sort.
func (d *DB) claimQuery(table, cols, choice string) string {
	return `UPDATE ` + table + ` SET claimed_by = $1, claimed_until = $3 WHERE id IN (` +
		choice + ` ` + d.dialect.SkipLocked + `) RETURNING ` + cols
}

// claimTables are the tables whose rows are claimed.
var claimTables = []string{"posts", "feeds", "sources", "sitemaps", "site_checkouts"}

// renewClaims extends every live claim of this owner, every third of the
// claims' lifetime, until stop closes: a batch that takes longer than one
// lifetime (a thousand pages of one site at a ten-second Crawl-delay) stays
// with its worker, while a dead worker's claims lapse within one lifetime.
func (d *DB) renewClaims(stop <-chan struct{}) {
	for {
		d.claims.mu.Lock()
		every := d.claims.ttl / 3
		d.claims.mu.Unlock()
		select {
		case <-stop:
			return
		case <-d.claims.changed:
			continue
		case <-time.After(every):
		}
		owner, now, until := d.claims.stamp()
		for _, table := range claimTables {
			_, err := d.w.ExecContext(context.Background(), `UPDATE `+table+` SET claimed_until = $3
				WHERE claimed_by = $1 AND claimed_until <> 0 AND claimed_until >= $2`, owner, now, until)
			if err != nil && !errors.Is(err, sql.ErrConnDone) {
				d.log.Warn("claim renewal failed", "table", table, "err", err)
			}
		}
	}
}

// releaseClaims gives back every claim of this owner, so that a worker
// stopped cleanly (Ctrl-C, SIGTERM) leaves its unfinished work to the
// others at once rather than when its claims lapse.
func (d *DB) releaseClaims() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	owner := d.ClaimOwner()
	for _, table := range claimTables {
		if _, err := d.w.ExecContext(ctx, `UPDATE `+table+` SET claimed_until = 0 WHERE claimed_by = $1 AND claimed_until <> 0`, owner); err != nil {
			d.log.Warn("claim release failed", "table", table, "err", err)
		}
	}
}
