package postgres_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/storetest"
)

// The child side of TestCheckoutProcesses: a worker that checks out sites
// with due posts, as the frontier does, and fetches their posts, printing
// "FETCH id" before and "SAVED id" after storing each, until no post is
// due.
const checkoutChildEnv = "CORPUSBOT_CHECKOUT_CHILD" // "dsn|name"

const checkoutProcTTL = time.Second

func TestCheckoutChild(t *testing.T) {
	arg := os.Getenv(checkoutChildEnv)
	if arg == "" {
		t.Skip("run by TestCheckoutProcesses")
	}
	p := strings.Split(arg, "|")
	db := open(t, p[0])
	db.SetCheckouts(p[1], checkoutProcTTL, nil)
	out := bufio.NewWriter(os.Stdout)
	ctx := context.Background()
	for {
		now := time.Now()
		due, err := db.DueSites(ctx, store.SiteQuery{Now: now, SitemapsBefore: now, Round: p[1]}, 3)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, d := range due {
			want = append(want, d.Site)
		}
		sites, err := db.CheckOutSites(ctx, p[1], want)
		if err != nil {
			t.Fatal(err)
		}
		if len(sites) == 0 {
			var n int
			if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM posts WHERE due = 1`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		for _, co := range sites {
			site := co.Site
			srcs, err := db.SiteSources(ctx, site, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range srcs {
				ps, err := db.PostsDue(ctx, src.ID, time.Now(), 100)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ps {
					fmt.Fprintf(out, "FETCH %d\n", p.ID)
					out.Flush()
					time.Sleep(2 * time.Millisecond)
					if err := db.SavePage(ctx, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "x", TextFrom: model.TextFromPage, Fetched: time.Now()}); err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(out, "SAVED %d\n", p.ID)
					out.Flush()
				}
			}
			if err := db.CheckInSite(ctx, site, p[1], time.Time{}, time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Three worker processes check out the sites of one database's due posts;
// one is killed with SIGKILL mid-run. Every post is stored, none is fetched
// twice but the killed worker's one in-flight post, and the killed
// worker's checkouts are taken over once they lapse.
func TestCheckoutProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dsn := testDSN(t)
	db := open(t, dsn)
	ctx := context.Background()
	const n, sites = 300, 30
	var ps []store.NewPost
	for s := range sites {
		src, _, err := db.AddSource(ctx, fmt.Sprintf("https://c%02d.example/", s), storetest.T0)
		if err != nil {
			t.Fatal(err)
		}
		// Only its pages are due.
		if err := db.MarkDiscovered(ctx, src.ID, storetest.T0); err != nil {
			t.Fatal(err)
		}
		if err := db.MarkSitemapsChecked(ctx, src.ID, storetest.T0); err != nil {
			t.Fatal(err)
		}
		for i := range n / sites {
			ps = append(ps, store.NewPost{URL: fmt.Sprintf("https://c%02d.example/p%03d", s, i), SourceID: src.ID})
		}
	}
	if _, err := db.AddPosts(ctx, ps); err != nil {
		t.Fatal(err)
	}
	type line struct {
		child int
		kind  string
		id    string
	}
	var mu sync.Mutex
	var lines []line
	var wg sync.WaitGroup
	var cmds []*exec.Cmd
	killed := make(chan struct{})
	for c := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCheckoutChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|child%d", checkoutChildEnv, dsn, c))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		wg.Go(func() {
			sc := bufio.NewScanner(stdout)
			fetched := 0
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) != 2 || (f[0] != "FETCH" && f[0] != "SAVED") {
					continue
				}
				mu.Lock()
				lines = append(lines, line{c, f[0], f[1]})
				mu.Unlock()
				if c == 0 && f[0] == "FETCH" {
					if fetched++; fetched == 20 {
						cmd.Process.Kill()
						close(killed)
					}
				}
			}
		})
	}
	for c, cmd := range cmds {
		err := cmd.Wait()
		if c != 0 && err != nil {
			t.Errorf("child %d: %v", c, err)
		}
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("child 0 was never killed")
	}
	fetches := map[string][]int{}
	saved := map[string]int{}
	for _, l := range lines {
		if l.kind == "FETCH" {
			fetches[l.id] = append(fetches[l.id], l.child)
		} else {
			saved[l.id]++
		}
	}
	if len(fetches) != n {
		t.Errorf("%d of %d posts fetched", len(fetches), n)
	}
	repeated := 0
	for id, cs := range fetches {
		if len(cs) > 1 {
			repeated++
			if len(cs) > 2 || cs[0] != 0 || saved[id] != 1 {
				t.Errorf("post %s fetched by %v, saved %d times", id, cs, saved[id])
			}
		}
	}
	if repeated > 1 {
		t.Errorf("%d posts fetched twice, want at most the killed worker's one in flight", repeated)
	}
	var due int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM posts WHERE due = 1`).Scan(&due); err != nil {
		t.Fatal(err)
	}
	if due != 0 {
		t.Errorf("%d posts still due", due)
	}
	per := map[int]int{}
	for _, l := range lines {
		if l.kind == "FETCH" {
			per[l.child]++
		}
	}
	t.Logf("fetches per child %v, repeated %d", per, repeated)
}
