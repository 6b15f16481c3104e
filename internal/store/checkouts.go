package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultCheckoutTTL is how long a checkout of due work holds unless SetCheckouts
// says otherwise: long enough for one batch, short enough that a dead
// worker's work is taken over the same day.
const DefaultCheckoutTTL = 15 * time.Minute

// checkouts is who this DB checks due work out as. Every "…Due" and "…To…"
// batch marks the rows it returns claimed_by owner until now+ttl (the
// columns keep their first name), so that
// another worker asking at the same time is handed other rows; storing the
// work's result gives the checkout back, and a worker that dies leaves its
// checkouts to lapse. Rows are checked out in the database, not in memory,
// so a checkout holds across processes and machines. (A work checkout is
// not a site owner's claim, model.Claim, nor a robots.txt refresh hold.)
type checkouts struct {
	mu    sync.Mutex
	owner string
	ttl   time.Duration
	now   func() time.Time
	// sole: no other worker can share the database (see SetSoleWorker),
	// so a batch is read, not checked out.
	sole bool
	// changed wakes the renewal loop when SetCheckouts changes the lifetime.
	changed chan struct{}
}

func newCheckouts(owner string, ttl time.Duration) *checkouts {
	if owner == "" {
		b := make([]byte, 4)
		rand.Read(b)
		host, _ := os.Hostname()
		owner = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
	}
	if ttl <= 0 {
		ttl = DefaultCheckoutTTL
	}
	return &checkouts{owner: owner, ttl: ttl, now: time.Now, changed: make(chan struct{}, 1)}
}

// SetCheckouts sets the name this DB checks work out as (unique per worker;
// "" keeps the current one), the checkouts' lifetime (0 keeps it) and the
// clock (nil: time.Now). Call it before use.
func (d *DB) SetCheckouts(owner string, ttl time.Duration, now func() time.Time) {
	d.checkouts.mu.Lock()
	defer d.checkouts.mu.Unlock()
	if owner != "" {
		d.checkouts.owner = owner
		d.checkouts.sole = false // named workers: there may be several
	}
	if ttl > 0 {
		d.checkouts.ttl = ttl
	}
	if now != nil {
		d.checkouts.now = now
	}
	select {
	case d.checkouts.changed <- struct{}{}:
	default:
	}
}

// SetSoleWorker says that this DB's worker is the only one its database
// can have (SQLite: one crawler owns the file, and every process of it
// checks out as the same owner, so a mark would keep nothing from anyone).
// Batches are then read from the read pool instead of checked out: no
// write, no commit, no checkout to give back. SetCheckouts with an owner
// undoes it.
func (d *DB) SetSoleWorker() {
	d.checkouts.mu.Lock()
	defer d.checkouts.mu.Unlock()
	d.checkouts.sole = true
}

// CheckoutOwner is the name this DB checks work out as.
func (d *DB) CheckoutOwner() string {
	d.checkouts.mu.Lock()
	defer d.checkouts.mu.Unlock()
	return d.checkouts.owner
}

func (c *checkouts) stamp() (owner string, now, until int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now()
	return c.owner, t.UnixNano(), t.Add(c.ttl).UnixNano()
}

// checkoutArgs are the first three arguments of every checkout query: $1
// the owner, $2 now, $3 the checkout's end; the query's own start at $4.
func (d *DB) checkoutArgs(args ...any) []any {
	owner, now, until := d.checkouts.stamp()
	return append([]any{owner, now, until}, args...)
}

// notCheckedOut is the condition that a row is not held by another live
// worker (a checkout given back has claimed_until 0).
const notCheckedOut = `(claimed_by = $1 OR claimed_until < $2)`

// notPaused keeps the feeds, sitemaps and posts of paused sources (their
// owner opted out or paused them) out of every batch; it follows a
// condition, in tables with a source_id.
const notPaused = ` AND source_id NOT IN (SELECT id FROM sources WHERE paused <> 0)`

// checkOutQuery checks out the rows of table whose ids choice selects (choice
// must end with its ORDER BY and LIMIT and test notCheckedOut itself) and
// returns cols of each. The order of the returned rows is not defined:
// callers sort.
func (d *DB) checkOutQuery(table, cols, choice string) string {
	return `UPDATE ` + table + ` SET claimed_by = $1, claimed_until = $3 WHERE id IN (` +
		choice + ` ` + d.dialect.SkipLocked + `) RETURNING ` + cols
}

// checkOut returns the rows of table whose ids choice selects (see
// checkOutQuery; args start at $4, after checkoutArgs'), checked out by
// this worker; the sole worker only reads them.
func checkOut[T any](ctx context.Context, d *DB, table, cols, choice string, args []any, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	d.checkouts.mu.Lock()
	sole := d.checkouts.sole
	d.checkouts.mu.Unlock()
	var out []T
	collect := func(rows *sql.Rows) error {
		v, err := scan(rows)
		out = append(out, v)
		return err
	}
	args = d.checkoutArgs(args...)
	if sole {
		// The choice itself, its columns widened, where it is a plain
		// SELECT id: no list of ids built to be looked up again.
		q, ok := strings.CutPrefix(choice, `SELECT id FROM `+table+` `)
		if ok {
			q = `SELECT ` + cols + ` FROM ` + table + ` ` + q
		} else {
			q = `SELECT ` + cols + ` FROM ` + table + ` WHERE id IN (` + choice + `)`
		}
		err := d.each(ctx, d.r, q, args, collect)
		return out, err
	}
	err := d.tx(ctx, func(tx conn) error {
		out = out[:0] // a retried transaction starts over
		return d.each(ctx, tx, d.checkOutQuery(table, cols, choice), args, collect)
	})
	return out, err
}

// checkoutTables are the tables whose rows are checked out.
var checkoutTables = []string{"posts", "feeds", "sources", "sitemaps", "site_checkouts"}

// renewCheckouts extends every live checkout of this owner, every third of
// the checkouts' lifetime, until stop closes: a batch that takes longer than one
// lifetime (a thousand pages of one site at a ten-second Crawl-delay) stays
// with its worker, while a dead worker's checkouts lapse within one lifetime.
func (d *DB) renewCheckouts(stop <-chan struct{}) {
	for {
		d.checkouts.mu.Lock()
		every := d.checkouts.ttl / 3
		d.checkouts.mu.Unlock()
		select {
		case <-stop:
			return
		case <-d.checkouts.changed:
			continue
		case <-time.After(every):
		}
		owner, now, until := d.checkouts.stamp()
		for _, table := range checkoutTables {
			_, err := d.w.ExecContext(context.Background(), `UPDATE `+table+` SET claimed_until = $3
				WHERE claimed_by = $1 AND claimed_until <> 0 AND claimed_until >= $2`, owner, now, until)
			if err != nil && !errors.Is(err, sql.ErrConnDone) {
				d.log.Warn("checkout renewal failed", "table", table, "err", err)
			}
		}
	}
}

// releaseCheckouts gives back every checkout of this owner, so that a worker
// stopped cleanly (Ctrl-C, SIGTERM) leaves its unfinished work to the
// others at once rather than when its checkouts lapse.
func (d *DB) releaseCheckouts() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	owner := d.CheckoutOwner()
	for _, table := range checkoutTables {
		if _, err := d.w.ExecContext(ctx, `UPDATE `+table+` SET claimed_until = 0 WHERE claimed_by = $1 AND claimed_until <> 0`, owner); err != nil {
			d.log.Warn("checkout release failed", "table", table, "err", err)
		}
	}
}
