package crawl_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/postgres/pgtest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgScaleApp names the benchmark's worker connections in
// pg_stat_activity, so that their server processes' CPU can be read.
const pgScaleApp = "corpusbot-pgscale"

// BenchmarkPostgresScale is issue 34's PostgreSQL figure: where one
// database stops keeping up with workers added. The database holds
// CORPUSBOT_BENCH_PG_SITES sources (default 1,000,000), each discovered
// with one feed of a farm site, and CORPUSBOT_BENCH_PG_POSTS posts
// (default 5,000,000, spread over the sources), built by COPY and SQL
// and analysed; the feeds' next reads are spread over the day, so that
// 1/24 are due at the start and more come due as the clock moves (a
// steady state: polls, new posts, their pages). Then, for each count in
// CORPUSBOT_BENCH_PG_WORKERS (default "1,2,4"), that many workers — the
// crawler of `corpusbot run`, each with its own connection pool and its
// own checkouts, goroutines of this process — run rounds over the farm on
// one simulated clock (simweb.EventClock: network waits cost no wall
// time, so the wall time is what the crawlers, the in-process web and the
// database cost) for CORPUSBOT_BENCH_PG_DURATION of wall time (default
// 2m), one after another on the same database. Meanwhile `corpusbot
// export` reads every post slowly, over and over (slowExport): by pages,
// as it does, or, with CORPUSBOT_BENCH_PG_EXPORT=snapshot, holding one
// REPEATABLE READ snapshot throughout, as it did when it read in one
// statement, so that vacuum can remove nothing written meanwhile.
//
// Reported per worker count: requests per wall second of the whole;
// site checkout latency p50/p99 (CheckOutSites, timed through the
// crawler's seam); database CPU per 1,000 requests (the workers'
// server processes, from /proc, found through pg_stat_activity); the
// crawler process's CPU per 1,000 requests; the big tables' sequential
// scans during the run; dead tuples and table sizes before and after.
// Needs CORPUSBOT_TEST_POSTGRES on this machine (its server's /proc).
//
//	CORPUSBOT_BENCH_PG_SITES=100000 CORPUSBOT_BENCH_PG_POSTS=500000 CORPUSBOT_BENCH_PG_WORKERS=1,2 \
//	CORPUSBOT_BENCH_PG_DURATION=1m go test -run '^$' -bench PostgresScale -benchtime 1x -timeout 2h ./internal/crawl
func BenchmarkPostgresScale(b *testing.B) {
	sites := benchEnv("CORPUSBOT_BENCH_PG_SITES", 1_000_000)
	posts := benchEnv("CORPUSBOT_BENCH_PG_POSTS", 5_000_000)
	workers := benchEnvInts("CORPUSBOT_BENCH_PG_WORKERS", []int{1, 2, 4})
	dur := 2 * time.Minute
	if v, err := time.ParseDuration(os.Getenv("CORPUSBOT_BENCH_PG_DURATION")); err == nil && v > 0 {
		dur = v
	}
	for b.Loop() {
		dsn := pgtest.DSN(b)
		fc := farm.Config{Shapes: append(farm.FeedShapes(), farm.PageShapes()...), MinPosts: 3, MaxPosts: 30, Start: farmStart}
		begin := time.Now()
		admin := buildPGScale(b, dsn, fc, sites, posts)
		defer admin.Close()
		b.Logf("built %d sources, %d feeds, %d posts in %v; tables %s", sites, sites, posts, time.Since(begin).Round(time.Second), tableSizes(b, admin))
		simNow := farmStart
		for _, n := range workers {
			r := runPGScale(b, dsn, admin, fc, n, dur, simNow)
			simNow = r.simEnd
			name := fmt.Sprintf("w%d-", n)
			b.ReportMetric(r.perSecond(), name+"req/s")
			b.ReportMetric(float64(r.requests), name+"requests")
			b.ReportMetric(r.checkout.quantile(0.5).Seconds()*1000, name+"checkout-p50-ms")
			b.ReportMetric(r.checkout.quantile(0.99).Seconds()*1000, name+"checkout-p99-ms")
			b.ReportMetric(r.dbCPU.Seconds()*1000/max(1, float64(r.requests)/1000), name+"db-cpu-ms/1k-req")
			b.ReportMetric(r.crawlerCPU.Seconds()*1000/max(1, float64(r.requests)/1000), name+"crawler-cpu-ms/1k-req")
			b.ReportMetric(r.sim.Seconds()/r.wall.Seconds(), name+"sim-s/wall-s")
			b.ReportMetric(float64(r.deadAfter["posts"]), name+"posts-dead-after")
			b.Logf("%d workers: %d requests in %v wall (%v simulated): %.0f requests/s; %d checkouts p50 %v p99 %v; database CPU %v (%.0f ms per 1,000 requests; autovacuum %v), this process %v; seq scans of big tables %v; dead tuples before %v after %v; tables after %s; statements by database time:%s",
				n, r.requests, r.wall.Round(time.Millisecond), r.sim.Round(time.Second), r.perSecond(), len(r.checkout.d),
				r.checkout.quantile(0.5).Round(time.Microsecond), r.checkout.quantile(0.99).Round(time.Microsecond),
				r.dbCPU.Round(time.Millisecond), r.dbCPU.Seconds()*1e6/max(1, float64(r.requests)), r.vacuumCPU.Round(time.Millisecond),
				r.crawlerCPU.Round(time.Millisecond), r.seqScans, r.deadBefore, r.deadAfter, tableSizes(b, admin), r.statements)
		}
		b.ReportMetric(loadAverage(), "loadavg")
	}
}

// buildPGScale makes the benchmark's database at dsn: sites sources, one
// feed each (the farm site's), posts posts, then VACUUM ANALYZE (the
// visibility map and statistics of a database in its steady state). It
// returns a connection for the benchmark's own questions.
func buildPGScale(b *testing.B, dsn string, fc farm.Config, sites, posts int) *sql.DB {
	b.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn) // the schema
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	admin, err := postgres.OpenDB(dsn)
	if err != nil {
		b.Fatal(err)
	}
	f := farm.New(fc)
	added := farmStart.Add(-30 * 24 * time.Hour).UnixNano()
	day := 24 * time.Hour
	copyRows(b, admin, "sources", []string{"id", "url", "ident", "site", "added", "discovered", "sitemaps_checked"}, sites, func(i int) []any {
		u := "http://" + farmHost(i) + "/"
		return []any{int64(i + 1), u, u, model.SiteOfURL(u), added, added, added}
	})
	copyRows(b, admin, "feeds", []string{"id", "source_id", "url", "state", "catalogue", "last_read", "checked", "next_due"}, sites, func(i int) []any {
		// Next reads spread over the day from an hour before the start:
		// 1/24 due at once, the rest as the clock reaches them.
		next := farmStart.Add(-time.Hour + time.Duration(i)*day/time.Duration(sites))
		last := next.Add(-day).UnixNano()
		return []any{int64(i + 1), int64(i + 1), f.Site(farmHost(i), 1).FeedURL(), model.FeedActive, model.CatalogueDone, last, last, next.UnixNano()}
	})
	// Posts: posts/sites a source (the rest on the first ones), each with a
	// few hundred bytes of text, indexed.
	steps := []string{
		fmt.Sprintf(`INSERT INTO posts(url, source_id, state, text_from, text, title, published, fetched, first_seen)
			SELECT 'http://blog' || lpad((s - 1)::text, 6, '0') || '.example/old/' || k || '/', s, 'indexed', 'feed',
				repeat(md5(s::text || k::text), 20), 'An older post', %[1]d, %[1]d, %[1]d
			FROM generate_series(0, %[2]d - 1) n, LATERAL (SELECT n %% %[3]d + 1 AS s, n / %[3]d AS k) x`, added, posts, sites),
		`SELECT setval(pg_get_serial_sequence('sources', 'id'), (SELECT max(id) FROM sources))`,
		`SELECT setval(pg_get_serial_sequence('feeds', 'id'), (SELECT max(id) FROM feeds))`,
		// Statistics for the filled tables only: a table analysed while
		// empty is planned as empty (read whole) until autovacuum analyses
		// it again, where one never analysed is sized by its pages as it
		// grows.
		`VACUUM ANALYZE sources, feeds, posts`,
	}
	for _, q := range steps {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			b.Fatalf("build: %v\n%s", err, q)
		}
	}
	return admin
}

// copyRows sends n rows of table through COPY.
func copyRows(b *testing.B, db *sql.DB, table string, cols []string, n int, row func(int) []any) {
	b.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		i := 0
		_, err := pc.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			i++
			return row(i - 1), nil
		}))
		return err
	})
	if err != nil {
		b.Fatalf("copy %s: %v", table, err)
	}
}

// pgScaleRun is one run of the benchmark's workers.
type pgScaleRun struct {
	wall, sim             time.Duration
	simEnd                time.Time
	requests              int64
	checkout              durations
	dbCPU, vacuumCPU      time.Duration
	crawlerCPU            time.Duration
	seqScans              map[string]int64
	deadBefore, deadAfter map[string]int64
	statements            string // the costliest statements (statementProfile)
}

func (r pgScaleRun) perSecond() float64 { return float64(r.requests) / r.wall.Seconds() }

// runPGScale runs n workers for dur of wall time from simStart, with an
// export holding a snapshot meanwhile.
func runPGScale(b *testing.B, dsn string, admin *sql.DB, fc farm.Config, n int, dur time.Duration, simStart time.Time) pgScaleRun {
	b.Helper()
	ctx := context.Background()
	clock := simweb.NewEventClock(simStart)
	defer clock.Close()
	web := simweb.New(simweb.WithClock(clock.Now), simweb.CountOnly(),
		simweb.WithLatency(simweb.Latency{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Seed: 34, Sleep: clock.Sleep}))
	defer web.Close()
	fc.Now = clock.Now
	web.Fallback(farm.New(fc).Handler)
	s := config.Defaults()
	s.FeedSchedule = config.ScheduleFixed
	s.FeedInterval = 24 * time.Hour
	s.Concurrency = 256
	appDSN := withParam(b, dsn, "application_name", pgScaleApp)

	var r pgScaleRun
	r.deadBefore = deadTuples(b, admin)
	scans0 := seqScans(b, admin)
	var crawlers []*crawl.Crawler
	var timers []*timedCheckouts
	for w := range n {
		db, err := postgres.Open(ctx, appDSN)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetCheckouts(fmt.Sprintf("bench-worker-%d", w), 0, clock.Now)
		c := scaleCrawler(b, s, db.DB, web, clock, nil)
		defer c.Close()
		t := &timedCheckouts{db: db}
		crawl.SetCheckouts(c, t)
		crawlers, timers = append(crawlers, c), append(timers, t)
	}
	runCtx, stop := context.WithTimeout(ctx, dur)
	defer stop()
	exportDone := make(chan error, 1)
	go func() { exportDone <- slowExport(runCtx, dsn) }()
	cpu := watchBackends(runCtx, admin)
	statements := statementProfile(admin)
	r0, u0, t0 := web.Tally().Requests, rusage(), time.Now()
	var wg sync.WaitGroup
	for _, c := range crawlers {
		wg.Go(func() {
			if err := c.Loop(runCtx, time.Hour); err != nil {
				b.Errorf("worker: %v", err)
			}
		})
	}
	wg.Wait()
	r.wall, r.requests, r.crawlerCPU = time.Since(t0), web.Tally().Requests-r0, rusage().cpu-u0.cpu
	r.simEnd = clock.Now()
	r.sim = r.simEnd.Sub(simStart)
	if err := <-exportDone; err != nil {
		b.Errorf("export: %v", err)
	}
	r.dbCPU, r.vacuumCPU = cpu()
	r.statements = statements(8)
	for _, t := range timers {
		r.checkout.d = append(r.checkout.d, t.took.d...)
	}
	time.Sleep(time.Second) // the backends' statistics flushed
	r.deadAfter = deadTuples(b, admin)
	r.seqScans = seqScans(b, admin)
	for k, v := range scans0 {
		r.seqScans[k] -= v
	}
	return r
}

// statementProfile starts a profile of the database's statements, when the
// server has pg_stat_statements loaded (.ci/postgres.sh loads it), and
// returns a func that lists the k statements that took the most of its
// time since, planning and execution: where a request's database CPU goes.
// It reports nothing when the extension is missing.
func statementProfile(admin *sql.DB) func(k int) string {
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public`); err != nil {
		return func(int) string { return "" }
	}
	if _, err := admin.ExecContext(ctx, `SELECT public.pg_stat_statements_reset()`); err != nil {
		return func(int) string { return "" }
	}
	return func(k int) string {
		rows, err := admin.QueryContext(ctx, `SELECT calls, total_plan_time, total_exec_time, rows,
				left(regexp_replace(query, '\s+', ' ', 'g'), 110),
				sum(total_plan_time + total_exec_time) OVER ()
			FROM public.pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
			ORDER BY total_plan_time + total_exec_time DESC LIMIT $1`, k)
		if err != nil {
			return "statements: " + err.Error()
		}
		defer rows.Close()
		var out strings.Builder
		for rows.Next() {
			var calls, n int64
			var plan, exec, all float64
			var q string
			if err := rows.Scan(&calls, &plan, &exec, &n, &q, &all); err != nil {
				return "statements: " + err.Error()
			}
			fmt.Fprintf(&out, "\n  %4.1f%% %8d calls, plan %.3f + exec %.3f ms a call, %.1f rows: %s",
				100*(plan+exec)/max(all, 1e-9), calls, plan/float64(max(calls, 1)), exec/float64(max(calls, 1)), float64(n)/float64(max(calls, 1)), q)
		}
		return out.String()
	}
}

// timedCheckouts times every CheckOutSites call of one worker.
type timedCheckouts struct {
	db   *postgres.DB
	mu   sync.Mutex
	took durations
}

func (t *timedCheckouts) CheckOutSites(ctx context.Context, round string, sites []string) ([]store.Checkout, error) {
	begin := time.Now()
	got, err := t.db.CheckOutSites(ctx, round, sites)
	t.mu.Lock()
	t.took.d = append(t.took.d, time.Since(begin))
	t.mu.Unlock()
	return got, err
}

// durations are samples of a latency.
type durations struct{ d []time.Duration }

func (s durations) quantile(q float64) time.Duration {
	if len(s.d) == 0 {
		return 0
	}
	d := slices.Clone(s.d)
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// slowExport is `corpusbot export` at its slowest, over and over until
// ctx ends: every post in ID order, a pause of 100 ms after each thousand
// (a consumer as slow as a pipe to another machine). It reads through the
// store's EachPost, a page at a time, as the export does; with
// CORPUSBOT_BENCH_PG_EXPORT=snapshot it holds one REPEATABLE READ snapshot
// for the whole run instead, as the export did before it read by pages.
func slowExport(ctx context.Context, dsn string) error {
	if os.Getenv("CORPUSBOT_BENCH_PG_EXPORT") == "snapshot" {
		return snapshotExport(ctx, dsn)
	}
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for ctx.Err() == nil {
		n := 0
		err := db.EachPost(context.Background(), func(store.Post) error {
			if n++; n%1000 == 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(100 * time.Millisecond):
				}
			}
			return nil
		})
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

// snapshotExport is slowExport holding one snapshot until ctx ends.
func snapshotExport(ctx context.Context, dsn string) error {
	db, err := postgres.OpenDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(context.Background(), &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var after int64
	for ctx.Err() == nil {
		rows, err := tx.QueryContext(context.Background(), `SELECT id, url, text FROM posts WHERE id > $1 ORDER BY id LIMIT 1000`, after)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			var u, text string
			if err := rows.Scan(&after, &u, &text); err != nil {
				rows.Close()
				return err
			}
			n++
		}
		rows.Close()
		if n == 0 {
			after = 0 // round again: the snapshot stays
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// watchBackends samples, every half second until ctx ends, the CPU time
// of the server processes of the benchmark's connections
// (application_name pgScaleApp) and of the autovacuum workers, from
// /proc; the returned func gives their totals. A backend's CPU is counted
// whole: the pools open theirs after the watch starts.
func watchBackends(ctx context.Context, admin *sql.DB) func() (workers, vacuum time.Duration) {
	var mu sync.Mutex
	ours, vac := map[int]time.Duration{}, map[int]time.Duration{}
	vac0 := map[int]time.Duration{}
	sample := func() {
		rows, err := admin.QueryContext(context.Background(), `SELECT pid, application_name = $1 FROM pg_stat_activity
			WHERE application_name = $1 OR backend_type = 'autovacuum worker'`, pgScaleApp)
		if err != nil {
			return
		}
		defer rows.Close()
		mu.Lock()
		defer mu.Unlock()
		for rows.Next() {
			var pid int
			var mine bool
			if rows.Scan(&pid, &mine) != nil {
				continue
			}
			t, ok := procCPU(pid)
			if !ok {
				continue
			}
			if mine {
				ours[pid] = t
			} else {
				if _, seen := vac0[pid]; !seen {
					vac0[pid] = t
				}
				vac[pid] = t - vac0[pid]
			}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			sample()
			select {
			case <-ctx.Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return func() (time.Duration, time.Duration) {
		<-done
		sample() // the backends are still open: their pools close later
		mu.Lock()
		defer mu.Unlock()
		var w, v time.Duration
		for _, t := range ours {
			w += t
		}
		for _, t := range vac {
			v += t
		}
		return w, v
	}
}

// procCPU is a process's user and system CPU time (Linux /proc/pid/stat,
// in clock ticks of 1/100 s).
func procCPU(pid int) (time.Duration, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: count from after it.
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// pgScaleTables are the tables whose dead tuples and scans are reported.
var pgScaleTables = []string{"sources", "feeds", "posts", "site_checkouts", "requests", "robots_cache", "links"}

func deadTuples(b *testing.B, db *sql.DB) map[string]int64 {
	return tableStat(b, db, "n_dead_tup")
}

func seqScans(b *testing.B, db *sql.DB) map[string]int64 {
	return tableStat(b, db, "seq_scan")
}

// tableStat reads a column of pg_stat_user_tables for pgScaleTables in the
// connection's schema.
func tableStat(b *testing.B, db *sql.DB, col string) map[string]int64 {
	b.Helper()
	out := map[string]int64{}
	rows, err := db.Query(`SELECT relname, `+col+` FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ANY($1)`, pgScaleTables)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			b.Fatal(err)
		}
		out[name] = v
	}
	return out
}

// tableSizes lists the big tables' rows and sizes (heap+TOAST, indexes).
func tableSizes(b *testing.B, db *sql.DB) string {
	b.Helper()
	rows, err := db.Query(`SELECT c.relname, c.reltuples::bigint, pg_table_size(c.oid), pg_indexes_size(c.oid) FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname = ANY($1) ORDER BY c.relname`, pgScaleTables)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var name string
		var n, table, index int64
		if err := rows.Scan(&name, &n, &table, &index); err != nil {
			b.Fatal(err)
		}
		per := ""
		if n > 0 {
			per = fmt.Sprintf(", %d+%d B/row", table/n, index/n)
		}
		parts = append(parts, fmt.Sprintf("%s %d rows %d+%d MiB%s", name, n, table>>20, index>>20, per))
	}
	return strings.Join(parts, "; ")
}

// withParam is dsn with one more query parameter.
func withParam(b *testing.B, dsn, name, value string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String()
}
