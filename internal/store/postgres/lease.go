package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/logging"
)

// ErrLeaseLost is returned by a Slot's Finish when the lease had expired and
// been granted again (the fencing token moved on): the successor's timing is
// kept, not overwritten.
var ErrLeaseLost = errors.New("site lease lost: expired and granted to another worker")

// Lease is fetch.Lease across a cluster: one row per site in site_leases,
// granted by one upsert that succeeds only while the site is free or its
// holder's lease has expired. Every grant bumps the row's token (the
// fencing token), and Release and Abandon only touch the row while it still
// carries theirs, so a worker whose lease expired (stalled, partitioned,
// killed) cannot release or overwrite its successor's. The site's last end
// and next-allowed time live in the row, so the gaps hold whichever worker
// asks next.
//
// A held lease is renewed every TTL/3 while its request runs; a worker that
// dies stops renewing, and its sites are free again within TTL. Times are
// the workers' clocks (fetch.Clock): keep the machines in NTP sync, and
// keep TTL well above the skew.
//
// A site's last end is stamped by the clock of whichever worker made the
// request, and the next worker waits by its own: two clocks, or one wall
// clock read across a step. Every such wait is therefore lengthened by
// ClockSkew, so that clocks that disagree by up to that much never shorten
// a gap. Within one process the local lease needs no margin: it compares
// monotonic readings.
type Lease struct {
	db     *sql.DB
	clock  fetch.Clock
	holder string
	ttl    time.Duration
	poll   time.Duration
	skew   time.Duration
	log    *slog.Logger
	// unfinished are the ends (Release, Abandon) the database failed, by
	// site: each is tried again before the site is next asked for, so that
	// a database that went away and came back does not leave the site held
	// until the lease expires, nor lose the end of its last request.
	mu         sync.Mutex
	unfinished map[string]*Slot
}

// LeaseOptions tune a Lease; zero values take the defaults.
type LeaseOptions struct {
	TTL    time.Duration // how long a silent holder keeps a site; default 30s
	Poll   time.Duration // how often a waiter asks again for a held site; default 25ms
	Holder string        // this worker's name in the table; default host:pid:random
	Log    *slog.Logger  // nil: slog.Default (logging.OrDefault)
	// ClockSkew is the most the workers' clocks may disagree, added to
	// every wait for a time another request stamped; default 5ms (NTP on
	// one network keeps machines well within it; 0.5% of a 1 s gap).
	// Negative means none.
	ClockSkew time.Duration
}

// DefaultClockSkew is LeaseOptions.ClockSkew's default.
const DefaultClockSkew = 5 * time.Millisecond

// NewLease returns the cluster lease over db (a migrated database: see Open).
func NewLease(db *sql.DB, clock fetch.Clock, o LeaseOptions) *Lease {
	if o.TTL <= 0 {
		o.TTL = 30 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 25 * time.Millisecond
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		rand.Read(b)
		o.Holder = fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b))
	}
	o.Log = logging.OrDefault(o.Log)
	switch {
	case o.ClockSkew == 0:
		o.ClockSkew = DefaultClockSkew
	case o.ClockSkew < 0:
		o.ClockSkew = 0
	}
	return &Lease{db: db, clock: clock, holder: o.Holder, ttl: o.TTL, poll: o.Poll, skew: o.ClockSkew, log: o.Log}
}

var _ fetch.Lease = (*Lease)(nil)

// grant is the one statement that takes a site: a new site's row is
// inserted held; a known one is taken only if free or expired. Its expiry
// covers the wait for the site's next-allowed time plus TTL (and the
// clock-skew margin).
const grant = `INSERT INTO site_leases AS l (site, holder, token, expires) VALUES ($1, $2, 1, $3::bigint + $4::bigint)
	ON CONFLICT (site) DO UPDATE SET holder = $2, token = l.token + 1,
		expires = GREATEST($3::bigint, l.next, CASE WHEN l.last_end = 0 THEN 0 ELSE l.last_end + $5::bigint END) + $4::bigint
	WHERE l.holder = '' OR l.expires <= $3::bigint
	RETURNING token, last_end, next`

// Acquire implements fetch.Lease: it takes the site's row, then waits out
// the site's next-allowed time (and floor after its last end) while holding
// it, as LocalLease does.
func (l *Lease) Acquire(ctx context.Context, site string, floor time.Duration) (fetch.Slot, error) {
	l.finishEarlier(site)
	for {
		now := l.clock.Now()
		var token, lastEnd, next int64
		err := l.db.QueryRowContext(ctx, grant, site, l.holder, ts(now), int64(l.ttl+l.skew), int64(floor)).Scan(&token, &lastEnd, &next)
		if errors.Is(err, sql.ErrNoRows) { // held by another worker
			if err := l.clock.Sleep(ctx, l.poll); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("site lease %s: %w", site, err)
		}
		s := &Slot{l: l, site: site, token: token, stop: make(chan struct{})}
		until := tm(next)
		if lastEnd != 0 && tm(lastEnd).Add(floor).After(until) {
			until = tm(lastEnd).Add(floor)
		}
		if !until.IsZero() {
			until = until.Add(l.skew)
		}
		if wait := until.Sub(l.clock.Now()); wait > 0 {
			if fetch.TooLong(ctx, wait, floor) {
				s.Abandon()
				return nil, &fetch.WaitError{Site: site, Until: until}
			}
			if err := l.clock.Sleep(ctx, wait); err != nil {
				s.Abandon()
				return nil, err
			}
		}
		s.wg.Go(s.renew)
		return s, nil
	}
}

// Slot is a held site lease.
type Slot struct {
	l     *Lease
	site  string
	token int64
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
	err   error
	// endQuery is the statement that gave the slot back, and endArgs its
	// arguments after the site and the token, kept while the database has
	// not run it.
	endQuery string
	endArgs  []any
}

// Token is the fencing token of this grant: it only grows, per site.
func (s *Slot) Token() int64 { return s.token }

func (s *Slot) renew() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	held := s.l.clock.Now().Add(s.l.ttl) // at least; the grant may have given more
	for {
		if s.l.clock.Sleep(ctx, s.l.ttl/3) != nil {
			return
		}
		until := s.l.clock.Now().Add(s.l.ttl)
		r, err := s.l.db.ExecContext(ctx, `UPDATE site_leases SET expires = GREATEST(expires, $3::bigint)
			WHERE site = $1 AND token = $2 AND holder = $4`, s.site, s.token, ts(until), s.l.holder)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.l.log.Warn("site lease renewal failed", "site", s.site, "err", err)
			if !s.l.clock.Now().Before(held) {
				return // expired by now: Finish will say so
			}
			continue
		}
		held = until
		if n, _ := r.RowsAffected(); n == 0 {
			s.l.log.Warn("site lease lost before its request ended", "site", s.site, "token", s.token)
			return
		}
	}
}

// Release implements fetch.Slot; a lost lease is logged (see Finish).
func (s *Slot) Release(end, next time.Time) {
	if err := s.Finish(end, next); err != nil {
		s.l.log.Warn("site lease release", "site", s.site, "err", err)
	}
}

// Finish is Release with its error: ErrLeaseLost when the fencing token
// moved on, so this worker's timing was not written.
func (s *Slot) Finish(end, next time.Time) error {
	return s.end(`UPDATE site_leases SET holder = '', expires = 0, last_end = $3, next = $4 WHERE site = $1 AND token = $2`,
		ts(end), ts(next))
}

// Abandon implements fetch.Slot: the site is freed with its timing as it was.
func (s *Slot) Abandon() {
	if err := s.end(`UPDATE site_leases SET holder = '', expires = 0 WHERE site = $1 AND token = $2`); err != nil {
		s.l.log.Warn("site lease abandon", "site", s.site, "err", err)
	}
}

func (s *Slot) end(q string, args ...any) error {
	s.once.Do(func() {
		close(s.stop)
		s.wg.Wait()
		s.endQuery, s.endArgs = q, args
		s.err = s.run()
		if s.err != nil && !errors.Is(s.err, ErrLeaseLost) {
			s.l.keepUnfinished(s)
		}
	})
	return s.err
}

// run runs the slot's end statement.
func (s *Slot) run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := s.l.db.ExecContext(ctx, s.endQuery, append([]any{s.site, s.token}, s.endArgs...)...)
	if err != nil {
		return fmt.Errorf("site lease %s: %w", s.site, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// keepUnfinished keeps s, whose end the database failed, to be ended
// before its site is next asked for (finishEarlier). The statement is
// fenced by the slot's token: run late, it touches the row only if nobody
// was granted the site since.
func (l *Lease) keepUnfinished(s *Slot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unfinished == nil {
		l.unfinished = map[string]*Slot{}
	}
	l.unfinished[s.site] = s
}

// finishEarlier runs the end of the site's last slot if the database
// failed it: the site is free again at once, with the end of its last
// request, rather than when the lease expires. A failure keeps it for the
// next time.
func (l *Lease) finishEarlier(site string) {
	l.mu.Lock()
	s := l.unfinished[site]
	delete(l.unfinished, site)
	l.mu.Unlock()
	if s == nil {
		return
	}
	if err := s.run(); err != nil && !errors.Is(err, ErrLeaseLost) {
		l.keepUnfinished(s)
	}
}
