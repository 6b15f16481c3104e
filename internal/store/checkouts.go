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

// DefaultCheckoutTTL is how long a checkout of a site holds unless
// SetCheckouts says otherwise. It is a lease, renewed every third of it
// while the worker lives (renewCheckouts), so a site visit of any length
// stays with its worker, while a worker that dies, or that cannot reach
// the database to give its sites back, strands them for at most this long.
const DefaultCheckoutTTL = time.Minute

// checkouts is who this DB checks sites out as (CheckOutSites): a row of
// site_checkouts names the worker and when its checkout expires, so that
// another worker asking at the same time is handed other sites; the
// checkout is renewed while the worker lives, given back when it finishes
// the site or stops, and left to lapse when it dies. Sites are checked out
// in the database, not in memory, so a checkout holds across processes and
// machines. (A work checkout is not a site owner's claim, model.Claim, nor
// a robots.txt refresh hold.)
type checkouts struct {
	mu    sync.Mutex
	owner string
	ttl   time.Duration
	now   func() time.Time
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

// renewCheckouts extends every checkout this owner holds, every third of
// the checkouts' lifetime, until stop closes: a visit that takes longer
// than one lifetime (a thousand pages of one site at a ten-second
// Crawl-delay) stays with its worker, while a dead worker's checkouts lapse
// within one lifetime. A checkout that lapsed while this worker could not
// reach the database (it is still working the site) is renewed too, unless
// another worker has taken the site meanwhile.
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
		owner, _, until := d.checkouts.stamp()
		_, err := d.w.ExecContext(context.Background(), `UPDATE site_checkouts SET expires = $2
			WHERE worker = $1 AND expires <> 0`, owner, until)
		if err != nil && !errors.Is(err, sql.ErrConnDone) {
			d.log.Warn("checkout renewal failed", "err", err)
		}
	}
}

// releaseCheckouts gives back every checkout of this owner, so that a worker
// stopped cleanly (Ctrl-C, SIGTERM) leaves its unfinished work to the
// others at once rather than when its checkouts lapse.
func (d *DB) releaseCheckouts() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := d.w.ExecContext(ctx, `UPDATE site_checkouts SET expires = 0 WHERE worker = $1 AND expires <> 0`, d.CheckoutOwner()); err != nil {
		d.log.Warn("checkout release failed", "err", err)
	}
}
