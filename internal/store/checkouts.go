package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
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
		if err := d.ReleaseDeadWorkers(context.Background()); err != nil && !errors.Is(err, sql.ErrConnDone) {
			d.logger().Warn("ended processes' checkouts not given back", "err", err)
		}
		owner, _, until := d.checkouts.stamp()
		_, err := d.w.ExecContext(context.Background(), `UPDATE site_checkouts SET expires = $2
			WHERE worker = $1 AND expires <> 0`, owner, until)
		if err != nil && !errors.Is(err, sql.ErrConnDone) {
			d.logger().Warn("checkout renewal failed", "err", err)
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
		d.logger().Warn("checkout release failed", "err", err)
	}
}

// ReleaseDeadWorkers gives back at once the checkouts of the workers on
// this machine whose process has ended (killed with kill -9, crashed),
// instead of leaving them to lapse: on a backend whose workers all run on
// one machine (Dialect.LocalWorkers: SQLite, whose WAL needs memory shared
// between its processes) a process can see that another has died. A dead
// worker's last request ended when it died, before now at the latest, so
// each site's last end becomes now. A worker whose name is not this
// package's (host-pid-random), or that runs on another host, is left to
// lapse.
func (d *DB) ReleaseDeadWorkers(ctx context.Context) error {
	if !d.dialect.LocalWorkers {
		return nil
	}
	owner, now, _ := d.checkouts.stamp()
	host, _ := os.Hostname()
	var dead []string
	err := d.each(ctx, d.r, `SELECT DISTINCT worker FROM site_checkouts WHERE expires <> 0 AND worker <> $1`, []any{owner}, func(rows *sql.Rows) error {
		var w string
		if err := rows.Scan(&w); err != nil {
			return err
		}
		if pid, ok := workerPID(w, host); ok && processGone(pid) {
			dead = append(dead, w)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("workers' checkouts: %w", err)
	}
	for _, w := range dead {
		res, err := d.w.ExecContext(ctx, `UPDATE site_checkouts SET expires = 0,
			last_end = CASE WHEN $2 > last_end THEN $2 ELSE last_end END
			WHERE worker = $1 AND expires <> 0`, w, now)
		if err != nil {
			return fmt.Errorf("checkouts of ended worker %s: %w", w, err)
		}
		n, _ := res.RowsAffected()
		d.logger().Info("checkouts of an ended process given back", "worker", w, "sites", n)
	}
	return nil
}

// workerPID is the process ID in a worker name that newCheckouts made on
// host (host-pid-random).
func workerPID(worker, host string) (int, bool) {
	rest, _, ok := cutLast(worker, '-')
	if !ok {
		return 0, false
	}
	h, p, ok := cutLast(rest, '-')
	if !ok || h != host {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	return pid, err == nil && pid > 0
}

func cutLast(s string, sep byte) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// Checkout is a site checked out to this worker, with what the workers
// before it left of its politeness timing (see CheckInSite): the worker
// honours it before its first request to the site.
type Checkout struct {
	Site    string
	LastEnd time.Time // when its last request ended
	Next    time.Time // its next permitted request
	// Wait is its stored back-off and Retry-After (site_waits), if any.
	Wait SiteWait
}

// SiteWait is a site's stored wait (site_waits), as fetch.SiteWait has it.
type SiteWait struct {
	Gap   time.Duration
	End   time.Time
	Until time.Time
	Next  time.Time
}

// checkOutSite takes one site for the worker $2 until $3, if it is free at
// $4 (not checked out by another live worker) and not finished in round
// $5. A checkout that lapsed in another worker's hands (it died, or lost
// its database for longer than a checkout lasts) may have had a request in
// flight until it lapsed: its last end becomes the lapse, so the site's gap
// is counted from then.
const checkOutSite = `INSERT INTO site_checkouts(site, worker, expires) VALUES ($1, $2, $3)
	ON CONFLICT(site) DO UPDATE SET worker = $2, expires = $3,
		last_end = CASE WHEN site_checkouts.worker <> $2 AND site_checkouts.expires > site_checkouts.last_end
			THEN site_checkouts.expires ELSE site_checkouts.last_end END
	WHERE (site_checkouts.worker = $2 OR site_checkouts.expires < $4) AND site_checkouts.round <> $5
	RETURNING site, last_end, next,
		COALESCE((SELECT w.gap FROM site_waits w WHERE w.site = $1), 0),
		COALESCE((SELECT w.gap_end FROM site_waits w WHERE w.site = $1), 0),
		COALESCE((SELECT w.retry_until FROM site_waits w WHERE w.site = $1), 0),
		COALESCE((SELECT w.next FROM site_waits w WHERE w.site = $1), 0)`

// CheckOutSites checks out to this worker those of sites that are free
// (not checked out by another live worker, not finished in round) and
// returns them with their timing; a checkout lasts the checkouts'
// lifetime and is renewed while the worker lives.
func (d *DB) CheckOutSites(ctx context.Context, round string, sites []string) ([]Checkout, error) {
	owner, now, until := d.checkouts.stamp()
	var out []Checkout
	err := d.tx(ctx, func(tx conn) error {
		out = out[:0]
		for _, site := range sites {
			var c Checkout
			var lastEnd, next, gap, gapEnd, retryUntil, waitNext int64
			err := tx.QueryRowContext(ctx, checkOutSite, site, owner, until, now, round).
				Scan(&c.Site, &lastEnd, &next, &gap, &gapEnd, &retryUntil, &waitNext)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				continue // another worker's, or finished in this round
			case err != nil:
				return fmt.Errorf("check out site %s: %w", site, err)
			}
			c.LastEnd, c.Next = tm(lastEnd), tm(next)
			c.Wait = SiteWait{Gap: time.Duration(gap), End: tm(gapEnd), Until: tm(retryUntil), Next: tm(waitNext)}
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// CheckInSite gives a checked-out site back: finished in round, or, with
// round "", unfinished (any worker may take it up at once). lastEnd and
// next are the site's timing as this worker leaves it (zero: unknown here),
// handed to whoever checks it out next; a later time stored stays.
func (d *DB) CheckInSite(ctx context.Context, site, round string, lastEnd, next time.Time) error {
	owner, _, _ := d.checkouts.stamp()
	return d.tx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `UPDATE site_checkouts SET expires = 0,
			round = CASE WHEN $3 <> '' THEN $3 ELSE round END,
			last_end = CASE WHEN $4 > last_end THEN $4 ELSE last_end END,
			next = CASE WHEN $5 > next THEN $5 ELSE next END
			WHERE site = $1 AND worker = $2`, site, owner, round, ts(lastEnd), ts(next))
		if err != nil {
			return fmt.Errorf("check in site %s: %w", site, err)
		}
		return nil
	})
}
