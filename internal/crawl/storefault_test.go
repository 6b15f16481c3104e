package crawl_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/postgres/pgtest"
)

// The store faults, on the simulated web: a database that cannot write
// stops the fetching within one request per site in flight; `run --once`
// ends with one error saying what and where, `run` waits and resumes; the
// next run takes up the work.

const (
	faultSites = 8
	faultPosts = 20 // per site
)

// faultHost is the i-th site of faultFarm.
func faultHost(i int) string { return fmt.Sprintf("shelf%d.example", i) }

// faultFarm serves faultSites blogs of faultPosts posts each, every page
// long enough (some 40 KB of text) that storing it needs pages of its own
// in the database; each page request goes through onPage first. It
// returns the posts' URLs.
func faultFarm(web *simweb.Web, onPage func(site string)) map[string]bool {
	posts := map[string]bool{}
	text := strings.Repeat("A shelf of words that fills a page of the database. ", 20)
	for s := range faultSites {
		h := web.Host(faultHost(s))
		h.Robots("User-agent: *\nAllow: /\n")
		h.Handle("/", simweb.NewResource(htmlType, homepage("/feed")))
		var items []item
		for i := range faultPosts {
			link := fmt.Sprintf("/post/%d", i)
			posts[h.URL(link)] = true
			items = append(items, item{h.URL(link), fmt.Sprintf("Post %d", i), day0.Add(-time.Duration(i) * time.Hour), false})
			page := simweb.NewResource(htmlType, article(fmt.Sprintf("Post %d of %d", i, s), text+fmt.Sprint(s, i), ""))
			site := faultHost(s)
			h.Handle(link, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				onPage(site)
				page.ServeHTTP(rw, r)
			}))
		}
		h.Handle("/feed", simweb.NewResource(rssType, rss(items)))
	}
	return posts
}

// limitPages caps the database of the writer pool w at its size now, or
// lifts the cap (PRAGMA max_page_count, set on both of the pool's
// connections): capped, a write that needs a new page fails with
// SQLITE_FULL, as it does on a full disk.
func limitPages(t testing.TB, w *sql.DB, lift bool) {
	ctx := context.Background()
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 2 {
		c, err := w.Conn(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		conns = append(conns, c)
		pages := int64(4294967294)
		if !lift {
			if err := c.QueryRowContext(ctx, `SELECT page_count FROM pragma_page_count()`).Scan(&pages); err != nil {
				t.Error(err)
				return
			}
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
			t.Error(err)
		}
	}
}

// faultWorld is a crawler on the wall clock (gaps of a few milliseconds)
// over faultFarm, whose page handler fills the database at the capAt-th
// page request (0: never) and counts, per site, the requests that reached
// a site while the store was unhealthy.
type faultWorld struct {
	*world
	posts     map[string]bool
	log       *lockedBuffer
	pages     atomic.Int64
	mu        sync.Mutex
	whileDown map[string]int
}

func newFaultWorld(t *testing.T, capAt int64) *faultWorld {
	w := &faultWorld{whileDown: map[string]int{}}
	w.world = newWorldWith(t, "", true, func(s *config.Settings) {
		s.MinGap, s.CataloguePageDelay = 5*time.Millisecond, 5*time.Millisecond
		s.DBWait = 10 * time.Second
	})
	w.posts = faultFarm(w.web, func(site string) {
		if w.db.Health() != nil {
			w.mu.Lock()
			w.whileDown[site]++
			w.mu.Unlock()
		}
		if w.pages.Add(1) == capAt {
			limitPages(t, w.db.Writer(), false) // before the page's answer, so before its save
		}
	})
	w.log = &lockedBuffer{}
	w.c.Log = slog.New(slog.NewTextHandler(w.log, nil))
	ctx := context.Background()
	for s := range faultSites {
		if _, _, err := w.db.AddSource(ctx, "http://"+faultHost(s)+"/", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// afterFailure is how many requests reached each site while the store was
// unhealthy, and in all.
func (w *faultWorld) afterFailure() (map[string]int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	total := 0
	out := map[string]int{}
	for s, n := range w.whileDown {
		out[s] = n
		total += n
	}
	return out, total
}

// indexedOnce checks that every post is indexed, and returns how many post
// pages were fetched more than once.
func (w *faultWorld) indexedOnce(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	indexed := 0
	err := w.db.EachPost(ctx, func(p store.Post) error {
		if !w.posts[p.URL] {
			t.Errorf("a post not served: %s", p.URL)
		}
		if p.State == model.PostIndexed {
			indexed++
		} else {
			t.Errorf("%s is %s (due %v, error %q)", p.URL, p.State, p.Due, p.Error)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if indexed != len(w.posts) {
		t.Errorf("%d of %d posts indexed", indexed, len(w.posts))
	}
	seen := map[string]int{}
	for _, r := range w.web.Requests() {
		if strings.HasPrefix(r.URI, "/post/") {
			seen[r.Host+r.URI]++
		}
	}
	twice := 0
	for _, n := range seen {
		if n > 1 {
			twice++
		}
	}
	return twice
}

// A database that fills mid-crawl stops the fetching: after the first
// write that fails, each site in flight gets at most the one request it
// had already begun, `run --once` ends with one error naming the fault and
// the database, the round counts the failed writes as errors, no post is
// marked failed, and once the database can grow again the next run
// indexes every post, fetching again only the pages whose saves failed.
func TestStoreFullStopsFetching(t *testing.T) {
	w := newFaultWorld(t, 3*faultSites)
	ctx := context.Background()
	err := w.c.Once(ctx)
	if !errors.Is(err, store.ErrCannotWrite) {
		t.Fatalf("run on a database that filled: %v, want ErrCannotWrite", err)
	}
	msg := err.Error()
	for _, want := range []string{"store cannot write: ", "database or disk is full", "crawling stopped after "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("the error is more than one line: %q", msg)
	}
	perSite, total := w.afterFailure()
	for site, n := range perSite {
		if n > 1 {
			t.Errorf("%s got %d requests after the store failed, want at most the one in flight", site, n)
		}
	}
	fetched := 0
	for _, r := range w.web.Requests() {
		if strings.HasPrefix(r.URI, "/post/") {
			fetched++
		}
	}
	t.Logf("pages fetched: %d of %d, the database filled at the %d-th; requests while the store could not write: %d (%d sites)",
		fetched, len(w.posts), 3*faultSites, total, faultSites)
	if fetched == len(w.posts) {
		t.Errorf("every page fetched though the database was full")
	}
	logText := w.log.String()
	var round string
	for _, l := range strings.Split(logText, "\n") {
		if strings.Contains(l, "round done") {
			round = l
		}
	}
	if !strings.Contains(round, "store cannot write×") || strings.Contains(round, "errors=0") {
		t.Errorf("the round line does not count the failed writes: %s", round)
	}
	ctxb := context.Background()
	err = w.db.EachPost(ctxb, func(p store.Post) error {
		if p.State == model.PostError {
			t.Errorf("%s marked error by our own disk", p.URL)
		}
		if p.State == model.PostPending && !p.Due {
			t.Errorf("%s pending and not due", p.URL)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	limitPages(t, w.db.Writer(), true)
	if err := w.c.Once(ctx); err != nil {
		t.Fatalf("the run after the database can grow: %v", err)
	}
	twice := w.indexedOnce(t)
	if twice > faultSites {
		t.Errorf("%d pages fetched twice, want at most one per site in flight (%d)", twice, faultSites)
	}
	t.Logf("after the disk was freed: every post indexed, %d pages fetched twice", twice)
	w.clean()
}

// Under `run`, a database that fills pauses the fetching, asks the store
// again with back-off, and takes the round up again once it can write:
// nothing is sent meanwhile, and every post ends indexed.
func TestStoreFullRunWaits(t *testing.T) {
	w := newFaultWorld(t, 3*faultSites)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.c.Loop(ctx, time.Hour) }()
	deadline := time.Now().Add(20 * time.Second)
	for w.db.Health() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the database never filled")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // paused: the probes fail
	_, during := w.afterFailure()
	select {
	case err := <-done:
		t.Fatalf("run ended on a full database: %v", err)
	default:
	}
	limitPages(t, w.db.Writer(), true)
	for {
		n := 0
		w.db.EachPost(ctx, func(p store.Post) error {
			if p.State == model.PostIndexed {
				n++
			}
			return nil
		})
		if n == len(w.posts) {
			break
		}
		if time.Now().After(deadline.Add(20 * time.Second)) {
			t.Fatalf("%d of %d posts indexed 20 s after the database could grow; log:\n%s", n, len(w.posts), w.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	perSite, total := w.afterFailure()
	for site, n := range perSite {
		if n > 1 {
			t.Errorf("%s got %d requests while the store could not write", site, n)
		}
	}
	if total != during {
		t.Errorf("%d requests while the store could not write, %d of them after the first 3 s of the pause", total, total-during)
	}
	logText := w.log.String()
	for _, want := range []string{"no request is sent until it records writes again", "crawling resumes"} {
		if !strings.Contains(logText, want) {
			t.Errorf("the log does not say %q:\n%s", want, logText)
		}
	}
	twice := w.indexedOnce(t)
	t.Logf("requests while paused: %d; pages fetched twice: %d", total, twice)
	w.clean()
}

// An opt-out check that fails (the store could not answer it) sends
// nothing, is logged as a failed check — not as an opt-out — and counted
// as an error of the round; the site's work is taken up again once the
// store answers, and every post ends indexed.
func TestOptOutCheckFailure(t *testing.T) {
	w := newFaultWorld(t, 0)
	var failures atomic.Int64
	failures.Store(3)
	fo := w.fetchOptions(w.db, fetch.RealClock{})
	fo.OptedOut = func(ctx context.Context, site string) (bool, error) {
		if failures.Add(-1) >= 0 {
			return true, fmt.Errorf("opt-out of %s: %w", site, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
		}
		return w.db.OptedOut(ctx, site)
	}
	f, err := fetch.New(fo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.CloseIdleConnections)
	w.c.Fetcher = f
	if err := w.c.Once(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	logText := w.log.String()
	if strings.Contains(logText, "site opted out") {
		t.Errorf("a failed check logged as an opt-out:\n%s", logText)
	}
	if n := strings.Count(logText, "opt-out check failed: nothing sent"); n != 3 {
		t.Errorf("%d failed checks logged, want 3:\n%s", n, logText)
	}
	var round string
	for _, l := range strings.Split(logText, "\n") {
		if strings.Contains(l, "round done") {
			round = l
		}
	}
	if !strings.Contains(round, "errors=3") || !strings.Contains(round, "opt-out check failed×3") {
		t.Errorf("the round line does not count the failed checks: %s", round)
	}
	w.indexedOnce(t)
	w.clean()
}

// On PostgreSQL, the server ending the crawler's connections mid-crawl
// (57P01, as a restart's fast stop does) is a store that went away and
// came back: the run pauses, finds the server again at once, takes the cut
// off sites up again and ends with every post indexed and no error; the
// writes lost meanwhile are counted in the round line.
func TestDatabaseConnectionsEndedMidCrawl(t *testing.T) {
	dsn := pgtest.DSN(t)
	app := fmt.Sprintf("crawl_%d", time.Now().UnixNano())
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn+"&application_name="+app)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	admin, err := postgres.OpenDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	w := &faultWorld{whileDown: map[string]int{}}
	w.world = newWorldOn(t, db.DB)
	var ended atomic.Int64
	w.posts = faultFarm(w.web, func(string) {
		if w.pages.Add(1) == 3*faultSites {
			var n int64
			if err := admin.QueryRowContext(ctx, `SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n); err != nil {
				t.Error(err)
			}
			ended.Store(n)
		}
	})
	w.log = &lockedBuffer{}
	w.c.Log = slog.New(slog.NewTextHandler(w.log, nil))
	for s := range faultSites {
		if _, _, err := w.db.AddSource(ctx, "http://"+faultHost(s)+"/", w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatalf("run: %v\n%s", err, w.log.String())
	}
	if ended.Load() == 0 {
		t.Fatal("no connection of the crawler was ended")
	}
	var round string
	for _, l := range strings.Split(w.log.String(), "\n") {
		if strings.Contains(l, "round done") {
			round = l
		}
	}
	t.Logf("%d connections ended; %s", ended.Load(), round)
	if strings.Contains(w.log.String(), "site opted out") {
		t.Errorf("a failed check logged as an opt-out:\n%s", w.log.String())
	}
	w.indexedOnce(t)
	w.clean()
}
