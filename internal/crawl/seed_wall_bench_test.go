package crawl_test

import (
	"bufio"
	"context"
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
	"corpus.blog/corpusbot/internal/simweb"
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
// faster); then CPU seconds, requests per CPU-second (and without the
// in-process server's share of the CPU profile: generating real-size
// documents is the simulation's cost, not the crawler's), TLS handshakes
// per site and the share resumed, connections per site, peak RSS (VmHWM,
// reset before each sub-benchmark), sites left with work due, and the
// politeness violations the server saw.
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
	concurrencyFloor time.Duration // every site's floor summed, over CONCURRENCY
	connections      int
	overlaps         int64
	undiscovered     int // robots.txt 503: discovery postponed by design
	serverShare      float64
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
	if m.serverShare > 0 && m.serverShare < 1 {
		b.ReportMetric(float64(m.requests)/(m.cpu.Seconds()*(1-m.serverShare)), "req/crawler-cpu-s")
	}
	b.ReportMetric(float64(m.overlaps), "overlaps")
	b.ReportMetric(float64(m.undiscovered), "undiscovered-sources")
	b.ReportMetric(float64(m.mem.goHeld)/(1<<20), "peak-go-MiB")
	b.ReportMetric(float64(m.mem.other())/(1<<20), "peak-not-go-MiB")
	if m.overlaps > 0 {
		b.Errorf("%d requests overlapped another to the same site", m.overlaps)
	}
	reportKinds(b, "seed", m.kinds)
}

// runSeedWall crawls a fresh seed population once, on the real clock,
// over https if tls.
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
	web := simweb.New(simweb.WithLatency(simweb.Latency{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Seed: 13}))
	defer web.Close()
	f := farm.New(farm.Config{Shapes: farm.DemoShapes(), MinPosts: 3, MaxPosts: 40, Start: start, Now: time.Now, HTTPS: tls, Sizes: sizes})
	web.Fallback(f.Handler)
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "crawl.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := scaleCrawler(b, s, db.DB, web, fetch.RealClock{}, nil)
	scheme := "http"
	if tls {
		scheme = "https"
	}
	if err := bulkSources(ctx, db, sources, farmHost, scheme, start); err != nil {
		b.Fatal(err)
	}
	delays := map[string]time.Duration{}
	for i := range sources {
		if h := farmHost(i); f.Site(h, 1).Shape.Robots == farm.RobotsCrawlDelay {
			delays[h] = farm.CrawlDelay
		}
	}

	stopWatch := watchMemory()
	load0 := loadAverage()
	prof := startProfile(b)
	began, u0 := time.Now(), rusage()
	if err := c.Once(ctx); err != nil {
		b.Errorf("round: %v", err)
	}
	wall, cpu := time.Since(began), rusage().cpu-u0.cpu
	p := seedWallPass{
		wallPass: wallPass{runs: 1, wall: wall, cpu: cpu, sites: sources, load: (load0 + loadAverage()) / 2,
			shakes: web.Handshakes(), tls: tls, maxRSS: peakRSS()},
		concurrency: s.Concurrency, connections: web.Dials(""), overlaps: web.Tally().Overlaps,
	}
	p.kinds = prof.stop(b)
	p.mem = stopWatch()
	for _, k := range p.kinds {
		if k.name == serverKind {
			p.serverShare = k.share
		}
	}

	reqs := web.Requests()
	p.requests = len(reqs)
	site, bound := busiestSite(reqs)
	p.bound = bound
	floors := siteFloors(reqs, s, delays)
	var floorSite string
	var sum time.Duration
	for st, d := range floors {
		sum += d
		if d > p.floor {
			floorSite, p.floor = st, d
		}
	}
	p.concurrencyFloor = sum / time.Duration(max(1, s.Concurrency))
	p.maxInFlight = concurrentSites(reqs)
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
	v := web.Violations(s.UserAgent, s.ProductToken(), func(site string) time.Duration { return max(s.MinGap, delays[site]) })
	p.violations = len(v)
	for _, line := range v[:min(len(v), 5)] {
		b.Error(line)
	}
	b.Logf("%s, %d sources (CONCURRENCY %d): %d requests in %v; busiest site %s %v (%.2f×); floor %s %v (%.2f×); "+
		"sites' floors summed over CONCURRENCY %v (%.2f×); %d sites left, %d undiscovered (robots.txt 503); CPU %v (%.0f requests per CPU-second, server %.0f%% of the profile); "+
		"peak RSS %d MiB (sampled: Go %d MiB, not Go %d MiB); peak sites at once %d; load %.1f; TLS handshakes %d full, %d resumed; %d connections",
		scheme, sources, s.Concurrency, p.requests, wall.Round(time.Millisecond), site, bound.Round(time.Millisecond), wall.Seconds()/bound.Seconds(),
		floorSite, p.floor.Round(time.Millisecond), wall.Seconds()/p.floor.Seconds(), p.concurrencyFloor.Round(time.Millisecond),
		wall.Seconds()/p.concurrencyFloor.Seconds(), p.left, p.undiscovered, cpu.Round(time.Millisecond), float64(p.requests)/cpu.Seconds(),
		100*p.serverShare, p.maxRSS>>20, p.mem.goHeld>>20, p.mem.other()>>20, p.maxInFlight, p.load, p.shakes.Full, p.shakes.Resumed, p.connections)
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
