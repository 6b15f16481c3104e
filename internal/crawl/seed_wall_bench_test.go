package crawl_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// BenchmarkSeedFirstPassWall is issue 34's seed figure: the seed's
// population (CORPUSBOT_BENCH_SEED_SOURCES, default 45,695 sources, the
// farm's demo shapes, 3 to 40 posts a site, as BenchmarkSeedFirstPass)
// crawled by one `run` round on the real clock, every response taking
// 20–200 ms, at real blogs' sizes (farm.SizesReal; CORPUSBOT_BENCH_SIZES=small
// for the farm's small documents), with the default settings (CONCURRENCY
// 2048 unless CORPUSBOT_BENCH_CONCURRENCY says otherwise).
//
// The same population is crawled twice in one run, once over https and once
// over plain http (sub-benchmarks tls and plain, in the order of
// CORPUSBOT_BENCH_SEED_SCHEMES, default "tls,plain"), so that the TLS ÷ plain
// ratio of requests per CPU-second is measured on one machine in one hour;
// the second sub-benchmark reports it.
//
// Each reports the wall time of the pass against its politeness bounds,
// from the server's record: the busiest site's recorded span (bound), its
// floor (responses plus the gaps politeness asks, as BenchmarkFirstPassWall
// computes it) and, what sets the pace when there are far more sites than
// CONCURRENCY, the sum of every site's floor over CONCURRENCY
// (concurrency-floor: no crawler holding CONCURRENCY sites at once can be
// faster); then the crawler's CPU seconds, requests per CPU-second, TLS
// handshakes per site and the share resumed, connections per site, the
// crawler's peak RSS (VmHWM, reset before each sub-benchmark), sites left
// with work due, and the politeness violations the server saw.
//
// The simulated web runs in a process of its own (startSimServer), whose
// CPU seconds and peak RSS are reported apart (server-cpu-s,
// server-peak-rss-MiB): generating real-size documents and recording every
// request is the simulation's cost, not the crawler's. Under
// CORPUSBOT_BENCH_SIM=inprocess it shares the crawler's process, as it
// used to; requests per CPU-second are then also given without the
// server's share of the CPU profile (req/crawler-cpu-s).
//
//	CORPUSBOT_BENCH_SEED_SOURCES=2000 go test -run '^$' -bench SeedFirstPassWall -benchtime 1x ./internal/crawl
func BenchmarkSeedFirstPassWall(b *testing.B) {
	sources := benchEnv("CORPUSBOT_BENCH_SEED_SOURCES", seedSources)
	sizes := benchSizes(farm.SizesReal)
	var tlsRate, plainRate float64 // requests per CPU-second, for the ratio
	for _, scheme := range benchSeedSchemes() {
		b.Run(scheme, func(b *testing.B) {
			var m seedWallPass
			for b.Loop() {
				m = runSeedWall(b, sources, scheme == "tls", sizes)
			}
			m.report(b)
			rate := float64(m.requests) / m.cpu.Seconds()
			if scheme == "tls" {
				tlsRate = rate
			} else {
				plainRate = rate
			}
			if tlsRate > 0 && plainRate > 0 {
				b.ReportMetric(tlsRate/plainRate, "tls/plain-req/cpu-s")
				b.Logf("requests per CPU-second: https %.0f, plain http %.0f: TLS ÷ plain %.2f", tlsRate, plainRate, tlsRate/plainRate)
			}
		})
	}
}

// benchSeedSchemes is CORPUSBOT_BENCH_SEED_SCHEMES: which of "tls" and
// "plain" to run, in order.
func benchSeedSchemes() []string {
	v := os.Getenv("CORPUSBOT_BENCH_SEED_SCHEMES")
	if v == "" {
		return []string{"tls", "plain"}
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s == "tls" || s == "plain" {
			out = append(out, s)
		}
	}
	return out
}

// benchSizes is CORPUSBOT_BENCH_SIZES: "real" or "small", def if unset.
func benchSizes(def farm.Sizes) farm.Sizes {
	switch os.Getenv("CORPUSBOT_BENCH_SIZES") {
	case "real":
		return farm.SizesReal
	case "small":
		return farm.SizesSmall
	}
	return def
}

// seedWallPass is what one real-clock pass over the seed measured.
type seedWallPass struct {
	wallPass
	concurrency      int
	group            store.GroupStats // the store's transactions during the pass, and the writes they carried
	concurrencyFloor time.Duration    // every site's floor summed, over CONCURRENCY
	connections      int
	overlaps         int64
	undiscovered     int     // robots.txt 503: discovery postponed by design
	serverShare      float64 // the in-process server's share of the CPU profile
	inProcess        bool    // the server shared the crawler's process
	server           simServerFigures
	kinds            []kindShare
	mem              memorySample
}

func (m seedWallPass) report(b *testing.B) {
	m.wallPass.report(b)
	lower := max(m.floor, m.concurrencyFloor)
	b.ReportMetric(float64(m.concurrency), "concurrency")
	b.ReportMetric(m.concurrencyFloor.Seconds(), "concurrency-floor-s")
	b.ReportMetric(m.wall.Seconds()/lower.Seconds(), "wall/lower-bound")
	b.ReportMetric(float64(m.connections)/float64(m.sites), "connections/site")
	if m.tls {
		b.ReportMetric(float64(m.requests)/float64(max(1, m.shakes.Total())), "requests/handshake")
	}
	if m.inProcess && m.serverShare > 0 && m.serverShare < 1 {
		b.ReportMetric(float64(m.requests)/(m.cpu.Seconds()*(1-m.serverShare)), "req/crawler-cpu-s")
	}
	if !m.inProcess { // the crawler's own CPU and RSS; the server's, apart
		b.ReportMetric(m.server.CPU.Seconds(), "server-cpu-s")
		b.ReportMetric(float64(m.server.PeakRSS)/(1<<20), "server-peak-rss-MiB")
	}
	b.ReportMetric(float64(m.overlaps), "overlaps")
	if m.group.Batches > 0 {
		b.ReportMetric(float64(m.group.Writes)/float64(m.group.Batches), "writes/commit")
	}
	b.ReportMetric(float64(m.undiscovered), "undiscovered-sources")
	b.ReportMetric(float64(m.mem.goHeld)/(1<<20), "peak-go-MiB")
	b.ReportMetric(float64(m.mem.other())/(1<<20), "peak-not-go-MiB")
	if m.overlaps > 0 {
		b.Errorf("%d requests overlapped another to the same site", m.overlaps)
	}
	reportKinds(b, "seed", m.kinds)
}

// runSeedWall crawls a fresh seed population once, on the real clock,
// over https if tls, the simulated web served by a process of its own
// (startSimServer) unless CORPUSBOT_BENCH_SIM=inprocess.
func runSeedWall(b *testing.B, sources int, tls bool, sizes farm.Sizes) seedWallPass {
	app.TuneGC(os.LookupEnv) // as the binary runs
	// The previous sub-benchmark's memory given back, and the peak reset,
	// so that this one's peak RSS is its own.
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	ctx := context.Background()
	s := config.Defaults()
	if n := benchEnvInts("CORPUSBOT_BENCH_CONCURRENCY", nil); len(n) > 0 {
		s.Concurrency = n[0]
	}
	start := time.Now()
	spec := simServerSpec{Sources: sources, TLS: tls, Sizes: sizes, Start: start, Concurrency: s.Concurrency}
	inProcess := os.Getenv("CORPUSBOT_BENCH_SIM") == "inprocess"
	var (
		route   simRoute
		figures func() (simServerFigures, error)
	)
	if inProcess {
		web, f := seedWeb(spec)
		defer web.Close()
		route = webRoute(web)
		figures = func() (simServerFigures, error) { return seedServerFigures(web, f, spec), nil }
	} else {
		proc, err := startSimServer(ctx, spec)
		if err != nil {
			b.Fatal(err)
		}
		defer func() {
			if err := proc.close(); err != nil {
				b.Errorf("server process: %v", err)
			}
		}()
		if route, err = proc.route(); err != nil {
			b.Fatal(err)
		}
		figures = proc.report
	}
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "crawl.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := routedCrawler(b, s, db.DB, route, fetch.RealClock{}, nil)
	scheme := "http"
	if tls {
		scheme = "https"
	}
	if err := bulkSources(ctx, db, sources, farmHost, scheme, start); err != nil {
		b.Fatal(err)
	}

	stopWatch := watchMemory()
	load0 := loadAverage()
	prof := startProfile(b)
	began, u0, g0 := time.Now(), rusage(), db.GroupStats()
	if err := c.Once(ctx); err != nil {
		b.Errorf("round: %v", err)
	}
	wall, cpu, g1 := time.Since(began), rusage().cpu-u0.cpu, db.GroupStats()
	maxRSS := peakRSS()
	p := seedWallPass{
		wallPass:    wallPass{runs: 1, wall: wall, cpu: cpu, sites: sources, load: (load0 + loadAverage()) / 2, tls: tls, maxRSS: maxRSS},
		concurrency: s.Concurrency, connections: route.dials(), inProcess: inProcess,
		group: store.GroupStats{Batches: g1.Batches - g0.Batches, Writes: g1.Writes - g0.Writes},
	}
	p.kinds = prof.stop(b)
	p.mem = stopWatch()
	for _, k := range p.kinds {
		if k.name == serverKind {
			p.serverShare = k.share
		}
	}
	fig, err := figures()
	if err != nil {
		b.Fatal(err)
	}
	p.server = fig
	p.requests, p.bound, p.floor = fig.Requests, fig.Bound, fig.Floor
	p.shakes, p.overlaps, p.maxInFlight = fig.Handshakes, fig.Overlaps, fig.MaxInFlight
	p.concurrencyFloor = fig.ConcurrencyFloor
	p.violations = fig.Violations
	for _, line := range fig.FirstViolations {
		b.Error(line)
	}
	if p.left, err = sitesLeft(ctx, db.DB, began); err != nil {
		b.Error(err)
	}
	err = db.EachSource(ctx, func(src store.Source) error {
		if src.Discovered.IsZero() {
			p.undiscovered++
		}
		return nil
	})
	if err != nil {
		b.Error(err)
	}
	serverCost := fmt.Sprintf("server %.0f%% of the profile", 100*p.serverShare)
	if !inProcess {
		serverCost = fmt.Sprintf("server process: CPU %v, peak RSS %d MiB", fig.CPU.Round(time.Millisecond), fig.PeakRSS>>20)
	}
	b.Logf("%s, %d sources (CONCURRENCY %d): %d requests in %v; busiest site %s %v (%.2f×); floor %s %v (%.2f×); "+
		"sites' floors summed over CONCURRENCY %v (%.2f×); %d sites left, %d undiscovered (robots.txt 503); CPU %v (%.0f requests per CPU-second; %s); "+
		"peak RSS %d MiB (sampled: Go %d MiB, not Go %d MiB); peak sites at once %d; load %.1f; TLS handshakes %d full, %d resumed; %d connections",
		scheme, sources, s.Concurrency, p.requests, wall.Round(time.Millisecond), fig.BusiestSite, p.bound.Round(time.Millisecond), wall.Seconds()/p.bound.Seconds(),
		fig.FloorSite, p.floor.Round(time.Millisecond), wall.Seconds()/p.floor.Seconds(), p.concurrencyFloor.Round(time.Millisecond),
		wall.Seconds()/p.concurrencyFloor.Seconds(), p.left, p.undiscovered, cpu.Round(time.Millisecond), float64(p.requests)/cpu.Seconds(),
		serverCost, p.maxRSS>>20, p.mem.goHeld>>20, p.mem.other()>>20, p.maxInFlight, p.load, p.shakes.Full, p.shakes.Resumed, p.connections)
	return p
}

// resetPeakRSS resets the kernel's record of the process's peak resident
// set (VmHWM), so that peakRSS measures from now: getrusage's maxrss
// cannot be reset, and a second sub-benchmark would report the first's
// peak. Without /proc (or permission), peakRSS measures from the start.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the process's peak resident set since resetPeakRSS (VmHWM),
// or getrusage's maxrss when /proc has none.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return rusage().maxRSS
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return rusage().maxRSS
}
