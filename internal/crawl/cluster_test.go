package crawl_test

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/postgres/pgtest"
)

// The cluster test: three worker processes (this test binary, switched by
// clusterEnv) run the real crawler against one PostgreSQL database and one
// simulated web served by the parent, so that the parent's server sees,
// and checks, the requests of all of them together. One worker is killed
// with SIGKILL early in the run; the others must take over its sites and
// its checked out work.
const (
	clusterEnv         = "CORPUSBOT_CLUSTER_CHILD" // "dsn|web address|worker"
	clusterSites       = 6
	clusterPages       = 3 // feed pages per site: page one and two catalogue pages
	clusterPerPage     = 8
	clusterPosts       = clusterSites * clusterPages * clusterPerPage
	clusterLeaseTTL    = 400 * time.Millisecond
	clusterCheckoutTTL = time.Second
)

func clusterSettings() config.Settings {
	s := config.Defaults()
	s.MinGap, s.CataloguePageDelay = 20*time.Millisecond, 30*time.Millisecond
	return s
}

func clusterHost(i int) string { return fmt.Sprintf("blog%d.example", i) }

// clusterWeb is the parent's web: clusterSites blogs of blogFarm.
func clusterWeb(t *testing.T) (*simweb.Web, map[string]bool) {
	web := simweb.New()
	t.Cleanup(web.Close)
	return web, blogFarm(web, clusterSites, clusterPages, clusterPerPage)
}

// blogFarm adds sites blogs to web (blog0.example, …), each a summary
// feed of perPage posts with pages-1 catalogue pages behind it, and
// returns the URLs of their posts.
func blogFarm(web *simweb.Web, sites, pages, perPage int) map[string]bool {
	posts := map[string]bool{}
	for s := range sites {
		h := web.Host(clusterHost(s))
		h.Robots("User-agent: *\nAllow: /\n")
		h.Handle("/", simweb.NewResource(htmlType, homepage("/feed")))
		for pg := range pages {
			var items []item
			for i := range perPage {
				n := pg*perPage + i
				link := fmt.Sprintf("/post/%d", n)
				posts[h.URL(link)] = true
				items = append(items, item{h.URL(link), fmt.Sprintf("Post %d", n), day0.Add(-time.Duration(n) * time.Hour), false})
				h.Handle(link, simweb.NewResource(htmlType, article(fmt.Sprintf("Post %d", n), "cluster text", "")))
			}
			path := "/feed"
			if pg > 0 {
				path = fmt.Sprintf("/feed?paged=%d", pg+1)
			}
			h.Handle(path, simweb.NewResource(rssType, rss(items)))
		}
	}
	return posts
}

// TestClusterChild is one worker: the crawler of `corpusbot run` with a
// PostgreSQL store, wired as cmd/corpusbot wires a cluster worker (the
// database's site lease and robots cache), fetching from the parent's web.
// It prints "REQ purpose url" for every request it completes and runs
// until SIGTERM.
func TestClusterChild(t *testing.T) {
	runClusterWorker(t, clusterEnv, clusterWorker{
		settings: clusterSettings(), checkoutTTL: clusterCheckoutTTL, pause: 20 * time.Millisecond,
		tune: func(o *fetch.Options, db *postgres.DB) {
			o.RobotsHold.TTL = clusterCheckoutTTL
			o.Lease = postgres.NewLease(db.SQL(), o.Clock, postgres.LeaseOptions{TTL: clusterLeaseTTL, Poll: 5 * time.Millisecond, Log: discard})
			o.Timeouts = fetch.Timeouts{Total: 5 * time.Second}
		},
		line: func(r model.RequestRecord) string { return fmt.Sprintf("REQ %s %s", r.Purpose, r.URL) },
	})
}

// clusterWorker is how a worker process of a cluster test runs: its
// settings, its checkouts' lifetime (0: the default), the pause between two
// rounds, changes to its fetcher's options, and the line it prints to the
// parent for every record.
type clusterWorker struct {
	settings    config.Settings
	checkoutTTL time.Duration
	pause       time.Duration
	tune        func(o *fetch.Options, db *postgres.DB)
	line        func(model.RequestRecord) string
}

// runClusterWorker is the body of a worker process: the real crawler on
// the database and the parent's simulated web that the env variable names
// ("dsn|web address|worker"), rounds until SIGTERM.
func runClusterWorker(t *testing.T, env string, w clusterWorker) {
	arg := os.Getenv(env)
	if arg == "" {
		t.Skip("run by its parent test")
	}
	p := strings.Split(arg, "|")
	dsn, addr, worker := p[0], p[1], p[2]
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetCheckouts("worker-"+worker, w.checkoutTTL, nil)
	clock := fetch.RealClock{}
	c := crawl.New(crawl.Config{Store: db.DB, Clock: clock, Settings: w.settings, Log: discard})
	defer c.Close()
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	remote := simweb.Remote{Addr: addr}
	o := fetch.Options{
		Settings: w.settings, Clock: clock, Resolver: remote, Dial: remote.Dial, Proxy: fetch.NoProxy, Logger: discard,
		Refusals: db, Robots: db, RobotsHold: fetch.RobotsHold{Holds: db},
		Lease: postgres.NewLease(db.SQL(), clock, postgres.LeaseOptions{Log: discard}),
		Observe: func(r model.RequestRecord) {
			mu.Lock()
			fmt.Fprintln(out, w.line(r))
			out.Flush()
			mu.Unlock()
			c.Observe(r)
		},
	}
	if w.tune != nil {
		w.tune(&o, db)
	}
	f, err := fetch.New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.CloseIdleConnections()
	c.Fetcher = f
	for ctx.Err() == nil {
		if err := c.Once(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "worker %s: %v\n", worker, err)
		}
		clock.Sleep(ctx, w.pause)
	}
}

// TestCluster: zero overlapping requests per site and every gap kept,
// across the three workers, as the server saw them; every post fetched,
// and fetched once (but the one a killed worker may have had in flight);
// robots.txt read once per origin for the whole cluster; the killed
// worker's checked out work taken over once its checkouts lapse.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns worker processes")
	}
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetCheckouts("parent", time.Second, nil)
	web, pages := clusterWeb(t)
	for s := range clusterSites {
		if _, _, err := db.AddSource(ctx, "http://"+clusterHost(s)+"/", time.Now()); err != nil {
			t.Fatal(err)
		}
	}

	type req struct {
		worker  int
		purpose string
		url     string
	}
	var mu sync.Mutex
	var done []req
	var killedAt time.Time
	var killedHost string
	var heldAtKill int
	cmds := make([]*exec.Cmd, 3)
	var wg sync.WaitGroup
	for w := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClusterChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), clusterEnv+"="+strings.Join([]string{dsn, web.Addr(), fmt.Sprint(w)}, "|"))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[w] = cmd
		if w == 0 {
			time.Sleep(300 * time.Millisecond) // worker 0 checks out the first work
		}
		wg.Go(func() {
			sc := bufio.NewScanner(stdout)
			n := 0
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) != 3 || f[0] != "REQ" {
					continue
				}
				mu.Lock()
				done = append(done, req{w, f[1], f[2]})
				mu.Unlock()
				// Kill worker 0 a few requests in, at a moment it holds
				// checked out work, so that the take-over is exercised.
				if n++; w == 0 && n >= 4 && killedAt.IsZero() {
					if held := checkoutsHeld(t, db, "worker-0"); held > 0 {
						cmd.Process.Kill() // SIGKILL mid-run: no release, no renewals
						mu.Lock()
						killedAt, killedHost, heldAtKill = time.Now(), hostOf(f[2]), held
						mu.Unlock()
					}
				}
			}
			cmd.Wait()
		})
	}

	deadline := time.Now().Add(60 * time.Second)
	for indexedPosts(t, db) < clusterPosts && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	for _, cmd := range cmds[1:] {
		cmd.Process.Signal(syscall.SIGTERM)
	}
	wg.Wait()

	if killedAt.IsZero() {
		t.Fatal("worker 0 was never killed")
	}
	if n := indexedPosts(t, db); n != clusterPosts {
		t.Fatalf("%d of %d posts indexed", n, clusterPosts)
	}
	s := clusterSettings()
	for _, v := range web.Violations(s.UserAgent, s.ProductToken(), func(string) time.Duration { return s.MinGap }) {
		t.Error(v)
	}
	fetched := map[string][]simweb.Request{}
	robotsReads := map[string]int{}
	firstRobots := map[string]time.Time{}
	for _, r := range web.Requests() {
		if u := "http://" + r.Host + r.URI; pages[u] {
			fetched[u] = append(fetched[u], r)
		}
		if r.URI == "/robots.txt" {
			if robotsReads[r.Host] == 0 || r.Start.Before(firstRobots[r.Host]) {
				firstRobots[r.Host] = r.Start
			}
			robotsReads[r.Host]++
		}
	}
	if len(fetched) != clusterPosts {
		t.Errorf("%d of %d post pages fetched", len(fetched), clusterPosts)
	}
	// A page may be fetched twice only when worker 0 had it in flight at
	// the kill: its answer never reached the database, so the post stayed
	// owed. With the site lease, that is at most one page per site.
	twice, perSite := 0, map[string]int{}
	for u, rs := range fetched {
		if len(rs) == 1 {
			continue
		}
		twice += len(rs) - 1
		perSite[rs[0].Host]++
		// (The killed process's last bytes may reach the server a moment
		// after Kill returned.)
		if len(rs) > 2 || !rs[0].Start.Before(killedAt.Add(50*time.Millisecond)) || perSite[rs[0].Host] > 1 {
			t.Errorf("%s fetched %d times (first at %v, kill at %v)", u, len(rs), rs[0].Start, killedAt)
		}
	}
	// robots.txt is read once per origin for the cluster. A second read is
	// allowed only where the first began before the kill: worker 0, with
	// several sites in flight, may have had an answer that never reached
	// the database (at most one such site per claim it held).
	extraRobots := 0
	for host, n := range robotsReads {
		if n == 1 {
			continue
		}
		extraRobots++
		t.Logf("%s/robots.txt read %d times", host, n)
		if n > 2 || !firstRobots[host].Before(killedAt.Add(50*time.Millisecond)) {
			t.Errorf("%s/robots.txt read %d times, the first at %v (kill at %v)", host, n, firstRobots[host], killedAt)
		}
	}
	if len(robotsReads) != clusterSites || extraRobots > max(1, heldAtKill) {
		t.Errorf("robots.txt reads per host %v: want one per origin for the cluster (worker 0 held %d claims at the kill)", robotsReads, heldAtKill)
	}
	// The site worker 0 was last working on was taken over: another worker
	// asked it for something after the kill.
	takenOver := false
	for _, r := range web.RequestsTo(killedHost) {
		takenOver = takenOver || r.Start.After(killedAt)
	}
	if !takenOver {
		t.Errorf("%s, worker 0's site at the kill, never asked again", killedHost)
	}
	by := map[int]int{}
	for _, r := range done {
		by[r.worker]++
	}
	t.Logf("requests by worker %v; worker 0 killed on %s holding %d site checkouts; %d post pages fetched twice", by, killedHost, heldAtKill, twice)
}

// checkoutsHeld counts the sites owner holds checked out.
func checkoutsHeld(t *testing.T, db *postgres.DB, owner string) int {
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM site_checkouts WHERE worker = $1 AND expires > $2`,
		owner, time.Now().UnixNano()).Scan(&n); err != nil {
		t.Error(err)
	}
	return n
}

func indexedPosts(t testing.TB, db *postgres.DB) int {
	n := 0
	err := db.EachPost(context.Background(), func(p store.Post) error {
		if p.State == model.PostIndexed {
			n++
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	return n
}

func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
