package crawl_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// The crash test runs the crawl in a child process (this test binary,
// switched by crashEnv), which hosts its own simulated web and appends every
// request it serves to a log file with one write(2) each, so that the log
// survives the child's kill -9. The parent kills the child twice, mid-
// catalogue and mid-pages, then lets a third run finish, and checks that
// nothing committed was lost, no page was fetched twice (but the one in
// flight at a kill), and the catalogue walk resumed rather than restarted.
const (
	crashEnv      = "CORPUSBOT_CRASH_CHILD" // "dbpath|logpath"
	crashPages    = 20                      // catalogue pages behind page one
	crashPerPage  = 10
	crashPosts    = (crashPages + 1) * crashPerPage
	crashHost     = "crash.example"
	crashFeedPath = "/feed"
)

func TestCrashChild(t *testing.T) {
	arg := os.Getenv(crashEnv)
	if arg == "" {
		t.Skip("only run as the crash test's child")
	}
	dbPath, logPath, _ := strings.Cut(arg, "|")
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorldWith(t, dbPath, true, func(s *config.Settings) {
		s.MinGap, s.CataloguePageDelay = 3*time.Millisecond, 6*time.Millisecond
	})
	crashSite(w.web, logf)
	ctx := context.Background()
	if _, _, err := w.db.AddSource(ctx, "http://"+crashHost+"/", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
}

// crashSite is one blog: a feed of crashPerPage posts with crashPages
// catalogue pages behind it (?paged=N), every request logged.
func crashSite(web *simweb.Web, logf *os.File) {
	var mu sync.Mutex
	logged := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			mu.Lock()
			fmt.Fprintf(logf, "%s\n", r.URL.RequestURI())
			mu.Unlock()
			h.ServeHTTP(rw, r)
		})
	}
	h := web.Host(crashHost)
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/", logged(simweb.NewResource(htmlType, homepage(crashFeedPath))))
	for pg := 0; pg <= crashPages; pg++ {
		var items []item
		for i := 0; i < crashPerPage; i++ {
			n := pg*crashPerPage + i
			link := fmt.Sprintf("/post/%d", n)
			items = append(items, item{h.URL(link), fmt.Sprintf("Post %d", n), day0.Add(-time.Duration(n) * time.Hour), false})
			h.Handle(link, logged(simweb.NewResource(htmlType, article(fmt.Sprintf("Post %d", n), "crash text", ""))))
		}
		path := crashFeedPath
		if pg > 0 {
			path = fmt.Sprintf("%s?paged=%d", crashFeedPath, pg+1)
		}
		h.Handle(path, logged(simweb.NewResource(rssType, rss(items))))
	}
}

func TestCrashKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	dbPath, logPath := filepath.Join(dir, "crash.db"), filepath.Join(dir, "requests.log")
	isCatalogue := func(u string) bool { return strings.Contains(u, "paged=") }
	isPage := func(u string) bool { return strings.HasPrefix(u, "/post/") }

	// Kill mid-catalogue, then mid-pages.
	for round, stopWhen := range []func([]string) bool{
		func(log []string) bool { return count(log, isCatalogue) >= crashPages/2 },
		func(log []string) bool { return count(log, isPage) >= crashPosts/3 },
	} {
		cmd := child(t, dbPath, logPath)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if stopWhen(readLog(t, logPath)) {
				cmd.Process.Kill() // SIGKILL: no deferred code, no clean close
				killed = true
				break
			}
		}
		cmd.Wait()
		if !killed {
			t.Fatalf("child finished before it could be killed")
		}
		if round == 0 {
			if n := count(readLog(t, logPath), isCatalogue); n >= crashPages {
				t.Fatalf("kill came too late: %d catalogue pages", n)
			}
			checkResumable(t, dbPath)
		}
	}

	cmd := child(t, dbPath, logPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	log := readLog(t, logPath)
	dups := 0
	seen := map[string]int{}
	for _, u := range log {
		if isPage(u) || isCatalogue(u) {
			if seen[u]++; seen[u] == 2 {
				dups++
			}
		}
	}
	// Resumed, not restarted: the walk's first page was asked for once.
	if n := count(log, func(u string) bool { return u == crashFeedPath+"?paged=2" }); n != 1 {
		t.Errorf("first catalogue page fetched %d times", n)
	}
	// A request in flight when the process died may be made again: its
	// result was never committed. At most one per kill.
	if dups > 2 {
		t.Errorf("%d pages fetched twice across two kills (at most the 2 in flight allowed)", dups)
	}
	db, err := sqlite.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	indexed := 0
	db.EachPost(context.Background(), func(p store.Post) error {
		if p.State == model.PostIndexed && p.Text != "" {
			indexed++
		}
		return nil
	})
	if indexed != crashPosts {
		t.Errorf("%d posts indexed after the crashes, want %d", indexed, crashPosts)
	}
	t.Logf("%d requests logged, %d fetched twice (in flight at a kill)", len(log), dups)
}

// checkResumable: after the kills the walk is recorded as part-done.
func checkResumable(t *testing.T, dbPath string) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	db.EachSource(context.Background(), func(s store.Source) error {
		fs, _ := db.SourceFeeds(context.Background(), s.ID)
		for _, f := range fs {
			n++
			t.Logf("after the first kill: feed %s catalogue %s, %d pages, next %s", f.URL, f.Catalogue, f.Pages, f.NextPage)
			if f.Catalogue == model.CatalogueDone && f.Pages < crashPages {
				t.Errorf("walk done after %d pages", f.Pages)
			}
		}
		return nil
	})
	if n != 1 {
		t.Fatalf("%d feeds after the kills", n)
	}
}

func child(t *testing.T, dbPath, logPath string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dbPath+"|"+logPath)
	return cmd
}

func readLog(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func count(ss []string, f func(string) bool) int {
	n := 0
	for _, s := range ss {
		if f(s) {
			n++
		}
	}
	return n
}
