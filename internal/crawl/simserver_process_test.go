package crawl_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
)

// The seed benchmark's simulated web runs in a process of its own (this
// test binary run again as TestSimServerProcess), so that the crawler's
// CPU time (its own rusage) and peak RSS (its own VmHWM) leave out what
// serving the farm and recording every request cost: at the seed's size
// the server is a sixth of the CPU and its record of 650,000 requests
// hundreds of MiB. The server's politeness figures are computed in the
// server's process, from its record, and sent back with its own CPU and
// peak RSS. CORPUSBOT_BENCH_SIM=inprocess serves the farm in the
// crawler's process instead, as before.

// simServeEnv carries a simServerSpec to the server process; its presence
// is what makes TestSimServerProcess serve.
const simServeEnv = "CORPUSBOT_SIM_SERVE"

// The server process's lines on stdout, each a prefix and a JSON value.
const (
	simReadyLine  = "simweb-ready "
	simReportLine = "simweb-report "
)

// simServerSpec is the web the server process serves.
type simServerSpec struct {
	Sources     int
	TLS         bool
	Sizes       farm.Sizes
	Start       time.Time // the farm's day 1, as the crawler's sources were made
	Concurrency int       // the crawler's, for the concurrency floor
}

// simServerReady is where the server process listens.
type simServerReady struct {
	Addr, TLSAddr string
	CA            []byte
}

// simServerFigures is what the server's record says about the pass: the
// politeness bound and floors, the most sites in flight at once, the
// violations it saw, and what the server process itself cost (zero when
// it shares the crawler's process).
type simServerFigures struct {
	Requests         int
	BusiestSite      string
	Bound            time.Duration
	FloorSite        string
	Floor            time.Duration
	ConcurrencyFloor time.Duration
	MaxInFlight      int
	Violations       int
	FirstViolations  []string
	Handshakes       simweb.Handshakes
	Overlaps         int64
	CPU              time.Duration
	PeakRSS          int64
}

// seedWeb is the seed benchmark's simulated web, served in the process
// that calls it.
func seedWeb(spec simServerSpec) (*simweb.Web, *farm.Farm) {
	web := simweb.New(simweb.WithLatency(simweb.Latency{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Seed: 13}))
	f := farm.New(farm.Config{Shapes: farm.DemoShapes(), MinPosts: 3, MaxPosts: 40, Start: spec.Start, Now: time.Now, HTTPS: spec.TLS, Sizes: spec.Sizes})
	web.Fallback(f.Handler)
	return web, f
}

// seedServerFigures computes the figures from web's record of the pass
// over spec's population served by f.
func seedServerFigures(web *simweb.Web, f *farm.Farm, spec simServerSpec) simServerFigures {
	s := config.Defaults()
	s.Concurrency = spec.Concurrency
	delays := map[string]time.Duration{}
	for i := range spec.Sources {
		if h := farmHost(i); f.Site(h, 1).Shape.Robots == farm.RobotsCrawlDelay {
			delays[h] = farm.CrawlDelay
		}
	}
	reqs := web.Requests()
	out := simServerFigures{Requests: len(reqs), Handshakes: web.Handshakes(), Overlaps: web.Tally().Overlaps}
	out.BusiestSite, out.Bound = busiestSite(reqs)
	var sum time.Duration
	for st, d := range siteFloors(reqs, s, delays) {
		sum += d
		if d > out.Floor {
			out.FloorSite, out.Floor = st, d
		}
	}
	out.ConcurrencyFloor = sum / time.Duration(max(1, s.Concurrency))
	out.MaxInFlight = concurrentSites(reqs)
	v := web.Violations(s.UserAgent, s.ProductToken(), func(site string) time.Duration { return max(s.MinGap, delays[site]) })
	out.Violations = len(v)
	out.FirstViolations = v[:min(len(v), 5)]
	return out
}

// TestSimServerProcess is the server process of the seed benchmark, run
// by startSimServer; it does nothing in an ordinary test run. It serves
// the web simServeEnv describes, prints where (simReadyLine), and waits
// on stdin: at "report" it prints its figures (simReportLine) and stops;
// at the end of stdin it stops.
func TestSimServerProcess(t *testing.T) {
	v := os.Getenv(simServeEnv)
	if v == "" {
		t.Skip("the seed benchmark's server process, run by the benchmark")
	}
	var spec simServerSpec
	if err := json.Unmarshal([]byte(v), &spec); err != nil {
		t.Fatalf("%s: %v", simServeEnv, err)
	}
	web, f := seedWeb(spec)
	defer web.Close()
	if err := printLine(os.Stdout, simReadyLine, simServerReady{Addr: web.Addr(), TLSAddr: web.TLSAddr(), CA: web.CACertPEM()}); err != nil {
		t.Fatal(err)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "report" {
			continue
		}
		// The server's own cost, before the figures' computation adds to it.
		u, peak := rusage(), peakRSS()
		fig := seedServerFigures(web, f, spec)
		fig.CPU, fig.PeakRSS = u.cpu, peak
		if err := printLine(os.Stdout, simReportLine, fig); err != nil {
			t.Fatal(err)
		}
		return
	}
}

func printLine(w io.Writer, prefix string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("server process line: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s%s\n", prefix, b)
	return err
}

// simServerProc is a running server process.
type simServerProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	lines  *bufio.Scanner
	remote simweb.Remote
	dials  atomic.Int64
}

// startSimServer starts the server process for spec and waits until it
// listens.
func startSimServer(ctx context.Context, spec simServerSpec) (*simServerProc, error) {
	v, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("server process spec: %w", err)
	}
	args := []string{"-test.run=^TestSimServerProcess$", "-test.bench=^$", "-test.timeout=0", "-test.count=1"}
	if dir := os.Getenv("CORPUSBOT_BENCH_PROFILE_DIR"); dir != "" {
		// The server's own CPU profile beside the crawler's: what the
		// simulated web costs the machine the pass runs on.
		args = append(args, "-test.cpuprofile="+filepath.Join(dir, fmt.Sprintf("server-cpu-%d.pprof", time.Now().UnixNano())))
	}
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), simServeEnv+"="+string(v))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("server process: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("server process: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("server process: %w", err)
	}
	p := &simServerProc{cmd: cmd, stdin: stdin, stdout: stdout, lines: bufio.NewScanner(stdout)}
	p.lines.Buffer(nil, 16<<20)
	var ready simServerReady
	if err := p.read(simReadyLine, &ready); err != nil {
		p.close()
		return nil, err
	}
	p.remote = simweb.Remote{Addr: ready.Addr, TLSAddr: ready.TLSAddr, CA: ready.CA}
	return p, nil
}

// read reads the server's output up to the line with prefix, into v.
func (p *simServerProc) read(prefix string, v any) error {
	for p.lines.Scan() {
		if rest, ok := strings.CutPrefix(p.lines.Text(), prefix); ok {
			if err := json.Unmarshal([]byte(rest), v); err != nil {
				return fmt.Errorf("server process %q line: %w", strings.TrimSpace(prefix), err)
			}
			return nil
		}
	}
	if err := p.lines.Err(); err != nil {
		return fmt.Errorf("server process output: %w", err)
	}
	return fmt.Errorf("server process ended before its %q line", strings.TrimSpace(prefix))
}

// route is how the crawler reaches the server process, counting its
// connections.
func (p *simServerProc) route() (simRoute, error) {
	r := simRoute{resolver: p.remote, dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		p.dials.Add(1)
		return p.remote.Dial(ctx, network, address)
	}, dials: func() int { return int(p.dials.Load()) }}
	cfg, err := p.remote.ClientTLS()
	if err != nil && p.remote.TLSAddr != "" {
		return simRoute{}, err
	}
	r.tls = cfg
	return r, nil
}

// report asks the server for its figures; it stops after sending them.
func (p *simServerProc) report() (simServerFigures, error) {
	var fig simServerFigures
	if _, err := io.WriteString(p.stdin, "report\n"); err != nil {
		return fig, fmt.Errorf("server process: %w", err)
	}
	err := p.read(simReportLine, &fig)
	return fig, err
}

// close ends the server process (stdin closed: it stops serving) and
// waits for it.
func (p *simServerProc) close() error {
	p.stdin.Close()
	done := make(chan error, 1)
	go func() {
		_, _ = io.Copy(io.Discard, p.stdout) // what follows the last line read, to the end
		done <- p.cmd.Wait()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		return errors.Join(errors.New("server process did not stop; killed"), <-done)
	}
}

// simRoute is how a crawler reaches a simulated web, in this process or
// another.
type simRoute struct {
	resolver fetch.Resolver
	dial     fetch.DialFunc
	tls      *tls.Config
	dials    func() int
}

// webRoute reaches web in this process.
func webRoute(web *simweb.Web) simRoute {
	return simRoute{resolver: web.Resolver(), dial: web.Dial, tls: web.ClientTLS(), dials: func() int { return web.Dials("") }}
}
