package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"

	"github.com/jackc/pgx/v5"
)

// planSources is the population of the plan test: enough sources (and
// feeds, sitemaps, posts a few times as many) that the planner prefers an
// index to reading a table whole, as it does at a million; the frontier's
// queries at this size answer in milliseconds either way, so the test
// asserts the plan, not a time.
const planSources = 100_000

// planNow is the population's "now".
var planNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// populate fills a fresh schema, through SQL alone (generate_series, so
// that a hundred thousand sources take seconds), with a crawl in its
// steady state: every source discovered but 1% (and 1% more without its
// sitemaps looked for), one feed each, their next reads spread over a day
// around now, a top-level sitemap for every other source read within the
// last 25 hours, three posts a source of which 1.5% are owed a page, a
// site checkout row for half the sites (finished in an old round; a few
// held by a live worker), a few sites waiting. Some 5% of the sources
// have work due, as in an hourly round. Then ANALYZE, as autovacuum would
// have by then, before the pages are owed.
func populate(t testing.TB, db *postgres.DB, sources int) {
	t.Helper()
	ctx := context.Background()
	now, min := planNow.UnixNano(), time.Minute.Nanoseconds()
	steps := []string{
		fmt.Sprintf(`INSERT INTO sources(id, url, ident, site, added, discovered, sitemaps_checked, discover_after, paused)
			SELECT i, 'http://blog' || i || '.example/', 'http://blog' || i || '.example/', 'blog' || i || '.example', %[1]d,
				CASE WHEN i %% 100 = 0 THEN 0 ELSE %[1]d END,
				CASE WHEN i %% 100 IN (0, 1) THEN 0 ELSE %[1]d END,
				CASE WHEN i %% 1000 = 500 THEN %[1]d + 60 * %[2]d ELSE 0 END,
				CASE WHEN i %% 1000 = 7 THEN 1 ELSE 0 END
			FROM generate_series(1, %[3]d) i`, now-48*60*min, min, sources),
		fmt.Sprintf(`INSERT INTO feeds(id, source_id, url, state, catalogue, last_read, checked, next_due, attempts, retry_at)
			SELECT i, i, 'http://blog' || i || '.example/feed',
				CASE WHEN i %% 50 = 3 THEN 'error' ELSE 'active' END,
				CASE WHEN i %% 200 = 5 THEN 'pending' ELSE 'done' END,
				CASE WHEN i %% 300 = 11 THEN 0 ELSE %[1]d - (i %% 1440) * %[2]d END,
				CASE WHEN i %% 300 = 11 THEN 0 ELSE %[1]d - (i %% 1440) * %[2]d END,
				%[1]d + ((i %% 1440) - 720) * %[2]d,
				CASE WHEN i %% 500 = 13 THEN 1 ELSE 0 END,
				CASE WHEN i %% 500 = 13 THEN %[1]d + 30 * %[2]d ELSE 0 END
			FROM generate_series(1, %[3]d) i WHERE i %% 100 <> 0`, now, min, sources),
		fmt.Sprintf(`INSERT INTO sitemaps(id, source_id, url, via, state, last_read)
			SELECT i, i, 'http://blog' || i || '.example/sitemap.xml', 'robots', 'active', %[1]d - (i %% 1000) * 90 * 1000000000::bigint
			FROM generate_series(2, %[2]d, 2) i WHERE i %% 100 > 1`, now, sources),
		fmt.Sprintf(`INSERT INTO posts(id, url, source_id, state, due, published, first_seen)
			SELECT i * 3 + j, 'http://blog' || i || '.example/p/' || j, i,
				CASE WHEN (i * 7 + j) %% 200 = 0 THEN 'pending' ELSE 'indexed' END, 0, %[1]d, %[1]d
			FROM generate_series(1, %[2]d) i, generate_series(0, 2) j WHERE i %% 100 > 1`, now-72*60*min, sources),
		fmt.Sprintf(`INSERT INTO site_checkouts(site, worker, expires, round)
			SELECT 'blog' || i || '.example', CASE WHEN i %% 1000 = 3 THEN 'other' ELSE 'old' END,
				CASE WHEN i %% 1000 = 3 THEN %[1]d + 10 * %[2]d ELSE 0 END, 'an-old-round'
			FROM generate_series(1, %[3]d, 2) i`, now, min, sources),
		fmt.Sprintf(`INSERT INTO site_waits(site, gap, next)
			SELECT 'blog' || i || '.example', 60 * %[2]d, %[1]d + 60 * %[2]d
			FROM generate_series(17, %[3]d, 1000) i`, now, min, sources),
		`SELECT setval(pg_get_serial_sequence('sources', 'id'), (SELECT max(id) FROM sources))`,
		`SELECT setval(pg_get_serial_sequence('feeds', 'id'), (SELECT max(id) FROM feeds))`,
		`SELECT setval(pg_get_serial_sequence('sitemaps', 'id'), (SELECT max(id) FROM sitemaps))`,
		`SELECT setval(pg_get_serial_sequence('posts', 'id'), (SELECT max(id) FROM posts))`,
		`ANALYZE`,
		// Pages come due between autovacuum's analyses: the statistics
		// were taken when none was owed, so that the partial indexes of
		// owed pages look empty to the planner, as they did in
		// BenchmarkPostgresScale, where an index of every owed page was
		// walked whole for one source's.
		`UPDATE posts SET due = 1 WHERE state = 'pending'`,
	}
	for _, q := range steps {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatalf("populate: %v\n%s", err, q)
		}
	}
}

// tracedQuery is one statement the store sent, with its arguments.
type tracedQuery struct {
	sql  string
	args []any
}

// queryLog records the statements the store sends while on.
type queryLog struct {
	mu   sync.Mutex
	on   bool
	seen []tracedQuery
}

func (l *queryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on {
		l.seen = append(l.seen, tracedQuery{d.SQL, d.Args})
	}
	return ctx
}

func (l *queryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// capture runs fn and returns the statements it sent.
func (l *queryLog) capture(fn func()) []tracedQuery {
	l.mu.Lock()
	l.on, l.seen = true, nil
	l.mu.Unlock()
	fn()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = false
	return l.seen
}

// planNode is a node of EXPLAIN (FORMAT JSON)'s tree.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	Relation     string     `json:"Relation Name"`
	Index        string     `json:"Index Name"`
	ActualRows   float64    `json:"Actual Rows"`
	ActualLoops  float64    `json:"Actual Loops"`
	RemovedByFil float64    `json:"Rows Removed by Filter"`
	Plans        []planNode `json:"Plans"`
}

// bigTables are the tables that grow with the population: a plan must
// reach their rows through an index. (site_waits holds the few sites in
// trouble; it may be read whole.)
var bigTables = map[string]bool{"sources": true, "feeds": true, "posts": true, "sitemaps": true, "site_checkouts": true,
	"requests": true, "links": true, "sitemap_urls": true}

// walk calls fn for every node of the tree.
func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// explain runs EXPLAIN (ANALYZE, FORMAT JSON) of q in a transaction rolled
// back (a checkout's upsert is run, not kept).
func explain(t *testing.T, db *postgres.DB, q tracedQuery) (planNode, string) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var out string
	if err := tx.QueryRowContext(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+q.sql, q.args...).Scan(&out); err != nil {
		t.Fatalf("explain: %v\n%s", err, q.sql)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output: %v\n%s", err, out)
	}
	return plans[0].Plan, out
}

// TestFrontierPlans: over a steady-state population of 100,000 sources
// (populate), every statement the frontier sends in a round — the due
// sites and their count, those other workers hold, those waiting, a
// checkout and a check-in, the feed re-reads chosen for the round, and
// for one site its sources, feeds, sitemaps and owed pages, its soonest
// retry — reaches the big tables only through an index: no Seq Scan of
// sources, feeds, posts, sitemaps or site_checkouts, and no index read
// whole behind a filter (each index node reads at most rangeSlack rows
// for every row it keeps). The due-sites query in particular is a range
// of the due items' indexes, not a walk of every source.
func TestFrontierPlans(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 sources")
	}
	dsn := testDSN(t)
	ctx := context.Background()
	log := &queryLog{}
	db, err := postgres.OpenTraced(ctx, dsn, log)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetCheckouts("this-worker", 0, func() time.Time { return planNow })
	begin := time.Now()
	populate(t, db, planSources)
	t.Logf("populated %d sources in %v", planSources, time.Since(begin).Round(time.Millisecond))

	q := store.SiteQuery{Now: planNow, SitemapsBefore: planNow.Add(-24 * time.Hour), Round: "this-round", WaitBefore: planNow.Add(30 * time.Second)}
	later := q
	later.After = planSources / 2
	waiting := q
	waiting.WaitBefore = planNow
	site, source := "blog1234.example", int64(1234)
	calls := []struct {
		name string
		fn   func() error
	}{
		{"DueSites", func() error { _, err := db.DueSites(ctx, q, 64); return err }},
		{"DueSites after", func() error { _, err := db.DueSites(ctx, later, 64); return err }},
		{"CountDueSites", func() error { _, err := db.CountDueSites(ctx, q); return err }},
		{"DueSitesHeld", func() error { _, err := db.DueSitesHeld(ctx, q); return err }},
		{"WaitingSites", func() error { _, err := db.WaitingSites(ctx, waiting, 1); return err }},
		{"CheckOutSites", func() error { _, err := db.CheckOutSites(ctx, q.Round, []string{site}); return err }},
		{"CheckInSite", func() error { return db.CheckInSite(ctx, site, q.Round, time.Time{}, time.Time{}) }},
		{"PollsDue", func() error {
			_, err := db.PollsDue(ctx, planNow, planNow.Add(-24*time.Hour), planNow.Add(-7*24*time.Hour), 1000)
			return err
		}},
		{"FeedsDue", func() error {
			_, err := db.FeedsDue(ctx, planNow, planNow.Add(-24*time.Hour), planNow.Add(-7*24*time.Hour), 1000)
			return err
		}},
		{"Source", func() error { _, err := db.Source(ctx, source); return err }},
		{"SiteSources", func() error { _, err := db.SiteSources(ctx, site, planNow); return err }},
		{"FeedsToRead", func() error { _, err := db.FeedsToRead(ctx, source, planNow); return err }},
		{"SourcePollsDue", func() error {
			_, err := db.SourcePollsDue(ctx, source, planNow, planNow.Add(-24*time.Hour), planNow.Add(-7*24*time.Hour))
			return err
		}},
		{"SourceCataloguesDue", func() error { _, err := db.SourceCataloguesDue(ctx, source, planNow); return err }},
		{"SourceSitemapsDue", func() error { _, err := db.SourceSitemapsDue(ctx, source, planNow, q.SitemapsBefore); return err }},
		{"PostsDue(source)", func() error { _, err := db.PostsDue(ctx, source, planNow, 100); return err }},
		{"SiteRetryAt", func() error { _, _, err := db.SiteRetryAt(ctx, site, planNow); return err }},
	}
	for _, c := range calls {
		var err error
		sent := log.capture(func() { err = c.fn() })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, s := range sent {
			if !strings.HasPrefix(strings.TrimSpace(strings.ToUpper(s.sql)), "SELECT") && !strings.HasPrefix(strings.TrimSpace(strings.ToUpper(s.sql)), "INSERT") &&
				!strings.HasPrefix(strings.TrimSpace(strings.ToUpper(s.sql)), "UPDATE") {
				continue // BEGIN, COMMIT
			}
			plan, raw := explain(t, db, s)
			if os.Getenv("CORPUSBOT_SHOW_PLANS") != "" {
				t.Logf("%s:\n%s\n%s", c.name, s.sql, raw)
			}
			plan.walk(func(n planNode) {
				switch {
				case n.NodeType == "Seq Scan" && bigTables[n.Relation]:
					t.Errorf("%s: Seq Scan on %s:\n%s", c.name, n.Relation, s.sql)
				case n.Index != "" && bigTables[n.Relation] && n.RemovedByFil > rangeSlack*max(n.ActualRows, 1):
					t.Errorf("%s: %s on %s read %.0f rows to keep %.0f (%.0f loops): a walk, not a range:\n%s",
						c.name, n.Index, n.Relation, n.RemovedByFil+n.ActualRows, n.ActualRows, n.ActualLoops, s.sql)
				}
			})
		}
	}
}

// rangeSlack is how many rows an index node may read and drop for every
// row it keeps before the plan counts as a walk of the index rather than
// a range of it.
const rangeSlack = 20
