package postgres_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store/postgres"
)

// The child side of TestLeaseProcesses: a worker process that takes and
// gives back site leases until its run time is up, printing
// "START site ns" when granted and "END site startns endns" when released.
const childEnv = "CORPUSBOT_LEASE_CHILD" // "dsn|worker|hold|run"

const (
	procSites = 4
	procTTL   = 400 * time.Millisecond
	procFloor = 10 * time.Millisecond
)

func TestLeaseChild(t *testing.T) {
	arg := os.Getenv(childEnv)
	if arg == "" {
		t.Skip("run by TestLeaseProcesses")
	}
	p := strings.Split(arg, "|")
	dsn, worker := p[0], p[1]
	hold, _ := time.ParseDuration(p[2])
	run, _ := time.ParseDuration(p[3])
	w, _ := strconv.Atoi(worker)
	db, err := postgres.OpenDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	l := postgres.NewLease(db, fetch.RealClock{}, postgres.LeaseOptions{TTL: procTTL, Poll: 2 * time.Millisecond, Log: discard})
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, format+"\n", a...)
		out.Flush()
	}
	deadline := time.Now().Add(run)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				site := fmt.Sprintf("site%d.example", (i+w+g*2)%procSites)
				s, err := l.Acquire(context.Background(), site, procFloor)
				if err != nil {
					t.Error(err)
					return
				}
				start := time.Now()
				say("START %s %d", site, start.UnixNano())
				time.Sleep(hold)
				end := time.Now()
				if err := s.(*postgres.Slot).Finish(end, end); err != nil {
					say("LOST %s %d", site, start.UnixNano())
					continue
				}
				say("END %s %d %d", site, start.UnixNano(), end.UnixNano())
			}
		})
	}
	wg.Wait()
}

// Three worker processes share four sites through one database; one is
// killed with SIGKILL while it holds a site. Across the processes no two
// holds of a site overlap, the floor gap holds, and the dead worker's site
// is taken over once its lease expires.
func TestLeaseProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dsn := testDSN(t)
	open(t, dsn)
	type hold struct {
		worker     int
		site       string
		start, end time.Time
	}
	var mu sync.Mutex
	var holds []hold
	var killedAt time.Time
	var killedSite string
	var killedStart time.Time
	var wg sync.WaitGroup
	for w := range 3 {
		h, run := "5ms", "2s"
		if w == 0 {
			h = "300ms" // long holds, so the kill lands inside one
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestLeaseChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{dsn, strconv.Itoa(w), h, run}, "|"))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		begun := time.Now()
		wg.Go(func() {
			open := map[string]time.Time{}
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) < 3 {
					continue
				}
				ns := func(s string) time.Time { n, _ := strconv.ParseInt(s, 10, 64); return time.Unix(0, n) }
				switch f[0] {
				case "START":
					open[f[1]+f[2]] = ns(f[2])
					if w == 0 && killedAt.IsZero() && time.Since(begun) > 700*time.Millisecond {
						cmd.Process.Kill() // SIGKILL mid-hold: no release, no renewals
						mu.Lock()
						killedAt, killedSite, killedStart = time.Now(), f[1], ns(f[2])
						mu.Unlock()
					}
				case "END":
					delete(open, f[1]+f[2])
					mu.Lock()
					holds = append(holds, hold{w, f[1], ns(f[2]), ns(f[3])})
					mu.Unlock()
				case "LOST":
					t.Errorf("worker %d lost its lease on %s", w, f[1])
				}
			}
			err := cmd.Wait()
			if w != 0 && err != nil {
				t.Errorf("worker %d: %v", w, err)
			}
		})
	}
	wg.Wait()
	if killedAt.IsZero() {
		t.Fatal("worker 0 was never killed")
	}
	// The killed hold lasts, for the others, until its lease expired: at
	// least until the kill.
	holds = append(holds, hold{0, killedSite, killedStart, killedAt})
	by := map[string][]hold{}
	for _, h := range holds {
		by[h.site] = append(by[h.site], h)
	}
	var spans []span
	for _, h := range holds {
		spans = append(spans, span{site: h.site, worker: h.worker, start: h.start, end: h.end})
	}
	checkSpans(t, spans, procFloor)
	// Taken over: someone held the killed site after the kill, within TTL
	// (plus renewal slack and scheduling) of it.
	var first time.Time
	for _, h := range by[killedSite] {
		if h.start.After(killedAt) && (first.IsZero() || h.start.Before(first)) {
			first = h.start
		}
	}
	if first.IsZero() {
		t.Fatalf("%s never taken over after the kill", killedSite)
	}
	if d := first.Sub(killedAt); d > procTTL+500*time.Millisecond {
		t.Errorf("%s taken over %v after the kill, TTL %v", killedSite, d, procTTL)
	}
	n := 0
	for _, h := range holds {
		if h.worker != 0 {
			n++
		}
	}
	t.Logf("%d holds by the surviving workers; %s taken over %v after the kill", n, killedSite, first.Sub(killedAt))
	if n < 20 {
		t.Errorf("only %d holds", n)
	}
}
