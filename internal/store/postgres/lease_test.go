package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store/postgres"
)

type span struct {
	site       string
	worker     int
	start, end time.Time
	next       time.Time // what the holder set as the site's next-allowed time
}

// checkSpans fails t on any two overlapping spans of one site, and on a span
// that started before floor after the previous one's end or before the
// next-allowed time the previous holder set.
func checkSpans(t *testing.T, spans []span, floor time.Duration) {
	t.Helper()
	by := map[string][]span{}
	for _, s := range spans {
		by[s.site] = append(by[s.site], s)
	}
	for site, ss := range by {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start.Before(ss[j].start) })
		for i := 1; i < len(ss); i++ {
			p, c := ss[i-1], ss[i]
			if c.start.Before(p.end) {
				t.Errorf("%s: overlap: worker %d %v–%v and worker %d from %v", site, p.worker, p.start, p.end, c.worker, c.start)
			}
			if c.start.Before(p.end.Add(floor)) {
				t.Errorf("%s: gap %v < floor %v", site, c.start.Sub(p.end), floor)
			}
			if c.start.Before(p.next) {
				t.Errorf("%s: started %v before next-allowed time", site, p.next.Sub(c.start))
			}
		}
	}
}

// Several workers, each with its own connection pool, share a few sites:
// one request in flight per site, floors and next-allowed times respected.
func TestLeaseOneInFlightAcrossWorkers(t *testing.T) {
	dsn := testDSN(t)
	open(t, dsn) // migrate
	const workers, perWorker, floor = 6, 8, 15 * time.Millisecond
	sites := []string{"a.example", "b.example", "c.example"}
	var mu sync.Mutex
	var spans []span
	var wg sync.WaitGroup
	for w := range workers {
		db, err := postgres.OpenDB(dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		l := postgres.NewLease(db, fetch.RealClock{}, postgres.LeaseOptions{Poll: 2 * time.Millisecond})
		for g := range 2 { // two goroutines per worker, as a fetcher has
			wg.Go(func() {
				for i := range perWorker {
					site := sites[(w+g+i)%len(sites)]
					slot, err := l.Acquire(context.Background(), site, floor)
					if err != nil {
						t.Error(err)
						return
					}
					start := time.Now()
					time.Sleep(3 * time.Millisecond) // the request
					end := time.Now()
					next := end
					if i%3 == 0 {
						next = end.Add(40 * time.Millisecond) // a Retry-After
					}
					slot.Release(end, next)
					mu.Lock()
					spans = append(spans, span{site, w, start, end, next})
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(spans) != workers*2*perWorker {
		t.Fatalf("%d spans", len(spans))
	}
	checkSpans(t, spans, floor)
}

// A worker that dies holding a site (its pool closed: no renewals, no
// release) loses it after TTL; its late release is fenced off and does not
// free or re-time its successor's lease.
func TestLeaseExpiryAndFencing(t *testing.T) {
	dsn := testDSN(t)
	open(t, dsn)
	mk := func() (*postgres.Lease, func()) {
		db, err := postgres.OpenDB(dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return postgres.NewLease(db, fetch.RealClock{}, postgres.LeaseOptions{TTL: 300 * time.Millisecond, Poll: 5 * time.Millisecond}), func() { db.Close() }
	}
	ctx := context.Background()
	a, _ := mk()
	b, _ := mk()
	c, _ := mk()

	sa, err := a.Acquire(ctx, "s.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	// While a lives it renews every TTL/3, so b waits past the TTL.
	bctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	if _, err := b.Acquire(bctx, "s.example", 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b got a renewed lease: %v", err)
	}
	cancel()

	// Now a worker dies holding the site: its pool is closed, so nothing
	// renews or releases its grant.
	sa.Release(time.Now(), time.Time{})
	dead, kill := mk()
	begin := time.Now() // before the grant, so the takeover is at least a TTL later
	sd, err := dead.Acquire(ctx, "s.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	kill()
	sb, err := b.Acquire(ctx, "s.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(begin); waited < 300*time.Millisecond || waited > 2*time.Second {
		t.Fatalf("took over after %v, TTL 300ms", waited)
	}
	if sb.(*postgres.Slot).Token() <= sd.(*postgres.Slot).Token() {
		t.Fatalf("token did not grow: %d then %d", sd.(*postgres.Slot).Token(), sb.(*postgres.Slot).Token())
	}
	// The dead worker's release is fenced off ...
	if err := sd.(*postgres.Slot).Finish(time.Now(), time.Now().Add(time.Hour)); err == nil {
		t.Fatal("stale release accepted")
	}
	// b still holds it: c must wait until b releases, and then obey b's
	// next-allowed time, not the stale one.
	next := time.Now().Add(150 * time.Millisecond)
	go func() {
		time.Sleep(100 * time.Millisecond)
		sb.Release(time.Now(), next)
	}()
	sc, err := c.Acquire(ctx, "s.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	if now := time.Now(); now.Before(next) {
		t.Fatalf("c got the site %v before b's next-allowed time", next.Sub(now))
	}
	sc.Abandon()
}

// An abandoned slot keeps the site's timing; a cancelled Acquire returns.
func TestLeaseAbandonKeepsTiming(t *testing.T) {
	dsn := testDSN(t)
	db := open(t, dsn)
	l := postgres.NewLease(db.SQL(), fetch.RealClock{}, postgres.LeaseOptions{Poll: 2 * time.Millisecond})
	ctx := context.Background()
	s, err := l.Acquire(ctx, "x.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(120 * time.Millisecond)
	s.Release(time.Now(), next)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	if _, err := l.Acquire(cctx, "x.example", 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire before next-allowed: %v", err)
	}
	cancel()
	s, err = l.Acquire(ctx, "x.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	if time.Now().Before(next) {
		t.Fatal("granted before next-allowed time")
	}
	s.Abandon()
	s.Abandon() // twice is once
	s, err = l.Acquire(ctx, "x.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Release(time.Now(), time.Time{})
}

// aheadClock is a worker's clock that reads ahead of the real one, as
// another machine's may, or this one's after its wall clock stepped.
type aheadClock struct {
	fetch.RealClock
	by time.Duration
}

func (c aheadClock) Now() time.Time { return time.Now().Add(c.by) }

// Worker b's clock reads 10 ms ahead of a's. b waits for a's stamped end
// plus the floor by its own clock, which alone would leave a real gap
// 10 ms short; a clock-skew margin above the disagreement keeps every real
// gap at the floor. With the margin switched off, the same run finds the
// short gaps (the check that this test can fail).
func TestLeaseClockSkewNeverShortensAGap(t *testing.T) {
	dsn := testDSN(t)
	open(t, dsn)
	const floor, ahead, rounds = 30 * time.Millisecond, 10 * time.Millisecond, 6
	run := func(skew time.Duration) (short int) {
		var leases [2]*postgres.Lease
		for i := range leases {
			db, err := postgres.OpenDB(dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			leases[i] = postgres.NewLease(db, aheadClock{by: time.Duration(i) * ahead}, postgres.LeaseOptions{Poll: time.Millisecond, ClockSkew: skew})
		}
		site := fmt.Sprintf("skew%d.example", skew)
		var lastEnd time.Time // the real clock's
		for i := range rounds {
			w := i % 2 // a, b, a, b: every wait is for the other's stamp
			s, err := leases[w].Acquire(context.Background(), site, floor)
			if err != nil {
				t.Fatal(err)
			}
			if start := time.Now(); !lastEnd.IsZero() && start.Sub(lastEnd) < floor {
				short++
			}
			lastEnd = time.Now()
			s.Release(aheadClock{by: time.Duration(w) * ahead}.Now(), time.Time{})
		}
		return short
	}
	if n := run(ahead + 2*time.Millisecond); n != 0 {
		t.Errorf("margin %v: %d of %d gaps shorter than the floor", ahead+2*time.Millisecond, n, rounds-1)
	}
	if n := run(-1); n == 0 {
		t.Errorf("no margin: every gap held the floor; the test cannot tell the margin's effect")
	}
}

func BenchmarkLeases(b *testing.B) {
	dsn := testDSN(b)
	open(b, dsn)
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			leases := make([]*postgres.Lease, workers)
			for i := range leases {
				db, err := postgres.OpenDB(dsn)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { db.Close() })
				leases[i] = postgres.NewLease(db, fetch.RealClock{}, postgres.LeaseOptions{})
			}
			var wg sync.WaitGroup
			per := b.N/workers + 1
			b.ResetTimer()
			begin := time.Now()
			for w := range workers {
				wg.Go(func() {
					for i := range per {
						site := fmt.Sprintf("w%d-s%d.example", w, i%64)
						s, err := leases[w].Acquire(context.Background(), site, 0)
						if err != nil {
							b.Error(err)
							return
						}
						s.Release(time.Now(), time.Time{})
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(per*workers)/time.Since(begin).Seconds(), "leases/s")
		})
	}
}

// A release the database failed (here: the row locked past the pool's
// statement timeout; in a restart: the connection ended) is run again
// before the site is next asked for: the site is free again at once, with
// the end of its last request kept, rather than held until the lease
// expires.
func TestLeaseReleaseFailedIsFinishedLater(t *testing.T) {
	ctx := context.Background()
	dsn := testDSN(t)
	open(t, dsn) // migrate
	db, err := postgres.OpenDB(dsn + "&statement_timeout=300")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	admin, err := postgres.OpenDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	const ttl, floor = time.Minute, 200 * time.Millisecond
	l := postgres.NewLease(db, fetch.RealClock{}, postgres.LeaseOptions{TTL: ttl})
	slot, err := l.Acquire(ctx, "a.example", floor)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := admin.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, `SELECT 1 FROM site_leases WHERE site = 'a.example' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	if err := slot.(*postgres.Slot).Finish(end, end); err == nil || errors.Is(err, postgres.ErrLeaseLost) {
		t.Fatalf("release of a locked row: %v, want the statement's failure", err)
	}
	if err := lock.Commit(); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	slot, err = l.Acquire(ctx, "a.example", floor)
	if err != nil {
		t.Fatal(err)
	}
	defer slot.Release(time.Now(), time.Now())
	took := time.Since(asked)
	if took > 10*time.Second {
		t.Errorf("the site was held %v after a failed release (lease TTL %v)", took, ttl)
	}
	if time.Now().Before(end.Add(floor)) {
		t.Errorf("granted %v after the last request's end, under the floor %v: its end was lost", time.Since(end), floor)
	}
	t.Logf("granted again %v after the failed release", took.Round(time.Millisecond))
}
