package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// The store's faults, through the binary: a database on a disk that fills
// up, and a PostgreSQL server restarted under two workers.

// shelfBlog serves a blog of posts pages, each some 20 KB of text (so that
// a disk fills in a few hundred pages), and returns the posts' URLs.
func shelfBlog(host *simweb.Host, posts int) []string {
	host.Robots("User-agent: *\nAllow: /\n")
	host.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>Shelf</title>
<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><p>A blog.</p></body></html>`)
	var items strings.Builder
	var urls []string
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	text := strings.Repeat("Words of a long post that takes room on the disk, as real posts do. ", 300)
	for i := 1; i <= posts; i++ {
		u := host.URL(fmt.Sprintf("/posts/%d/", i))
		urls = append(urls, u)
		fmt.Fprintf(&items, `<item><title>Post %d</title><link>%s</link><pubDate>%s</pubDate><description>Short %d</description></item>`,
			i, u, base.Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z), i)
		host.Put(fmt.Sprintf("/posts/%d/", i), "text/html; charset=utf-8", fmt.Sprintf(`<!doctype html><html><head><title>Post %d</title></head>
<body><article><h1>Post %d</h1><p>%s %d</p></article></body></html>`, i, i, text, i))
	}
	host.Put("/feed.xml", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>Shelf</title><link>`+host.URL("/")+`</link>`+items.String()+`</channel></rss>`)
	return urls
}

// shelves serves sites blogs of posts posts each on web, at 203.0.113.100
// and up, and returns their hosts and every post's URL.
func shelves(web *simweb.Web, sites, posts int) (hosts, urls []string) {
	for i := range sites {
		h := fmt.Sprintf("203.0.113.%d", 100+i)
		hosts = append(hosts, h)
		urls = append(urls, shelfBlog(web.Host(h), posts)...)
	}
	return hosts, urls
}

// politenessViolations are the violations web saw, at the gap env sets.
func politenessViolations(web *simweb.Web, gap time.Duration) []string {
	return web.Violations("CorpusBot/1.0 (+https://corpus.blog/crawler)", "CorpusBot", func(string) time.Duration { return gap })
}

// errorLines are the lines of stderr that are a command's error (not log
// lines): "corpusbot run: ...".
func errorLines(stderr string) []string {
	var out []string
	for _, l := range binarytest.Lines(stderr) {
		if strings.HasPrefix(l, "corpusbot ") {
			out = append(out, l)
		}
	}
	return out
}

// The database on a small tmpfs (root only) fills during `run --once`:
// at most one page per site in flight is fetched and thrown away, and
// after the first of them each site gets at most the one request it had
// begun; the run exits non-zero with one line saying what and where. Once the filesystem is grown, a second run
// completes: every post indexed once, no politeness violation.
func TestFullDiskStopsTheCrawl(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	const sites, posts = 10, 30
	web := simweb.New()
	t.Cleanup(web.Close)
	hosts, urls := shelves(web, sites, posts)
	env := binarytest.NewEnv(t).Proxy(t, web)
	disk := filepath.Join(env.Dir, "disk")
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", disk).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", disk, err, out)
		}
	})
	db := filepath.Join(disk, "corpusbot.db")
	env.Set("CORPUSBOT_DB", db)
	addSources(t, env, hosts...)

	r1 := env.Run(t, 2*time.Minute, "run", "--once")
	first := web.Requests()
	t.Logf("run --once on a 3 MiB disk: exit %d after %v, %d requests", r1.Code, r1.Took.Round(time.Millisecond), len(first))
	if out, err := exec.Command("mount", "-o", "remount,size=64m", disk).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	r2 := env.Run(t, 2*time.Minute, "run", "--once")
	second := web.Requests()[len(first):]
	t.Logf("run --once after the disk was grown: exit %d after %v, %d requests", r2.Code, r2.Took.Round(time.Millisecond), len(second))

	// The pages the first run fetched and the second fetched again are
	// those whose result the first could not store; the first failure
	// came after the earliest of them ended. Every request the first run
	// began after that is one the store could not record.
	fetched := map[string]bool{}
	for _, q := range first {
		if strings.HasPrefix(q.URI, "/posts/") {
			fetched[q.Host+q.URI] = true
		}
	}
	again := map[string]bool{}
	for _, q := range second {
		if fetched[q.Host+q.URI] {
			again[q.Host+q.URI] = true
		}
	}
	var failedAt time.Time
	pages := 0
	for _, q := range first {
		if !strings.HasPrefix(q.URI, "/posts/") {
			continue
		}
		pages++
		if again[q.Host+q.URI] && (failedAt.IsZero() || q.End.Before(failedAt)) {
			failedAt = q.End
		}
	}
	after := 0
	perSite := map[string]int{}
	for _, q := range first {
		if !failedAt.IsZero() && q.Start.After(failedAt) {
			after++
			perSite[q.Site]++
		}
	}
	t.Logf("first run: %d of %d pages fetched, %d of them thrown away (fetched again by the second run); %d requests began after the first of those ended (%d sites in flight)",
		pages, len(urls), len(again), after, sites)

	if r1.Code == 0 || r1.Code == -1 {
		t.Errorf("run --once on a full disk: exit %d, want non-zero; stderr:\n%s", r1.Code, r1.Stderr)
	}
	lines := errorLines(r1.Stderr)
	if len(lines) != 1 {
		t.Errorf("%d error lines on stderr, want 1: %q", len(lines), lines)
	} else {
		for _, want := range []string{"corpusbot run: store cannot write: ", "database or disk is full", db, "crawling stopped after "} {
			if !strings.Contains(lines[0], want) {
				t.Errorf("the error line does not say %q: %s", want, lines[0])
			}
		}
		t.Logf("stderr: %s", lines[0])
	}
	if failedAt.IsZero() {
		t.Errorf("the first run lost no page: the disk never filled (%d pages fetched)", pages)
	}
	if len(again) > sites {
		t.Errorf("%d pages fetched and thrown away, want at most one per site in flight (%d)", len(again), sites)
	}
	if after > sites {
		t.Errorf("%d requests after the first failure, want at most one per site in flight (%d)", after, sites)
	}
	for site, n := range perSite {
		if n > 1 {
			t.Errorf("%s: %d requests after the first failure", site, n)
		}
	}
	if pages == len(urls) {
		t.Errorf("the first run fetched every page on a full disk")
	}
	if r2.Code != 0 {
		t.Fatalf("run --once after the disk was grown: exit %d; stderr:\n%s", r2.Code, r2.Stderr)
	}
	wantIndexed(t, env, urls)
	if v := politenessViolations(web, 50*time.Millisecond); len(v) > 0 {
		t.Errorf("%d politeness violations: %v", len(v), v)
	}
}

// pgCluster is a throwaway PostgreSQL server of the test's own, on a
// loopback port of its own (never the shared CI server).
type pgCluster struct {
	bin, data, port, sock string
	asOwner               func(args ...string) *exec.Cmd
}

// startPostgres initialises and starts a cluster in a directory of the
// test's, as the postgres user when root (the server refuses root), and
// stops it when the test ends; it skips when PostgreSQL is not installed.
func startPostgres(t *testing.T) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL binaries in /usr/lib/postgresql/*/bin")
	}
	sort.Strings(bins)
	c := &pgCluster{bin: bins[len(bins)-1]}
	owner := ""
	if os.Geteuid() == 0 {
		owner = "postgres"
		c.asOwner = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
	} else {
		c.asOwner = func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	}
	dir, err := os.MkdirTemp("", "corpusbot-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c.data, c.sock = filepath.Join(dir, "data"), dir
	if owner != "" {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("chown", owner+":", dir).CombinedOutput(); err != nil {
			t.Skipf("chown: %v %s", err, out)
		}
	}
	if out, err := c.asOwner(filepath.Join(c.bin, "initdb"), "-D", c.data, "-U", "postgres", "--auth=trust", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Skipf("initdb: %v %s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, c.port, _ = net.SplitHostPort(ln.Addr().String())
	ln.Close()
	c.start(t)
	t.Cleanup(func() { c.stop(t, "immediate") })
	return c
}

func (c *pgCluster) start(t *testing.T) {
	t.Helper()
	opts := fmt.Sprintf("-p %s -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100", c.port, c.sock)
	out, err := c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.data, "-l", filepath.Join(c.data, "server.log"), "-w", "-o", opts, "start").CombinedOutput()
	if err != nil {
		t.Fatalf("pg_ctl start: %v %s", err, out)
	}
}

func (c *pgCluster) stop(t *testing.T, mode string) {
	t.Helper()
	if out, err := c.asOwner(filepath.Join(c.bin, "pg_ctl"), "-D", c.data, "-m", mode, "-w", "stop").CombinedOutput(); err != nil && mode != "immediate" {
		t.Errorf("pg_ctl stop: %v %s", err, out)
	}
}

func (c *pgCluster) dsn() string {
	return "postgres://postgres@127.0.0.1:" + c.port + "/postgres?sslmode=disable"
}

// A PostgreSQL server restarted for about 8 s in the middle of a crawl
// (a fast stop: the workers' connections are ended, then refused) is
// waited for: both `run --once` workers sharing the database finish with
// exit 0, every post indexed once, no politeness violation.
func TestPostgresRestartIsWaitedFor(t *testing.T) {
	t.Parallel()
	pg := startPostgres(t)
	const sites, posts = 8, 30
	const gap = 300 * time.Millisecond
	web := simweb.New()
	t.Cleanup(web.Close)
	hosts, urls := shelves(web, sites, posts)
	env := binarytest.NewEnv(t).Proxy(t, web).
		Set("CORPUSBOT_DB", pg.dsn()).
		Set("CORPUSBOT_MIN_GAP", gap.String())
	addSources(t, env, hosts...)

	start := time.Now()
	var wg sync.WaitGroup
	results := make([]binarytest.Result, 2)
	for i := range results {
		wg.Go(func() { results[i] = env.Run(t, 110*time.Second, "run", "--once") })
	}
	time.Sleep(4 * time.Second)
	before := len(web.Requests())
	down := time.Now()
	pg.stop(t, "fast")
	time.Sleep(8 * time.Second)
	pg.start(t)
	up := time.Now()
	wg.Wait()
	sentWhileDown := 0
	for _, q := range web.Requests() {
		if q.Start.After(down.Add(time.Second)) && q.Start.Before(up) {
			sentWhileDown++
		}
	}
	t.Logf("server down %v (from %v into the run, %d requests made before); requests begun while it was down (after the first second): %d",
		up.Sub(down).Round(100*time.Millisecond), down.Sub(start).Round(100*time.Millisecond), before, sentWhileDown)
	for i, r := range results {
		t.Logf("worker %d: exit %d after %v (%v after the server was back)", i+1, r.Code, r.Took.Round(100*time.Millisecond),
			start.Add(r.Took).Sub(up).Round(100*time.Millisecond))
		if r.Code != 0 {
			t.Errorf("worker %d: exit %d; stderr:\n%s", i+1, r.Code, r.Stderr)
		}
	}
	waited := 0
	for _, r := range results {
		if strings.Contains(r.Stderr, "store fault: no request is sent") {
			waited++
		}
	}
	if waited == 0 {
		t.Errorf("neither worker says it waited for the database; stderr of worker 1:\n%s", results[0].Stderr)
	}
	if sentWhileDown > 0 {
		t.Errorf("%d requests sent while the database was down", sentWhileDown)
	}
	wantIndexed(t, env, urls)
	if v := politenessViolations(web, gap); len(v) > 0 {
		t.Errorf("%d politeness violations: %v", len(v), v)
	}
}
