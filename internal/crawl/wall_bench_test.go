package crawl_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/demo"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// BenchmarkFirstPassWall is issue 13's first figure: on the real clock, a
// first pass over a population shaped like the demo's (its thirteen
// archetypes, three sizes each, repeated under new host names to
// CORPUSBOT_BENCH_SITES sites, default 2,000), every response delayed
// 20–200 ms (seeded), MIN_GAP 1 s, compared with the politeness bound: the
// busiest site's own span, first request start to last request end, as
// the server saw it. No crawler keeping the gaps can be faster; the goal
// is wall ≤ 1.3 × bound. Each CONCURRENCY of the sweep
// (CORPUSBOT_BENCH_CONCURRENCY, default 64,256,512,1024,2048) is one
// sub-benchmark; CORPUSBOT_BENCH_SCALE (default 0.1) multiplies the demo's
// post counts (120, 60 and 24 a blog become 12, 6 and 3) so that a pass
// takes about a minute, not hours.
//
// The same file runs on the phased crawler (scripts/bench's "before" part
// copies it onto bfdeb9a): one sub-benchmark, its 8 workers. FEED_BUDGET
// is raised to the number of sites for both, so that the phased crawler's
// first reads (which it counted against the budget) all happen in one
// round, as the frontier's do.
//
// CORPUSBOT_BENCH_TLS=1 serves and adds the sites as https (their feeds,
// sitemaps and links https too) and reports the TLS handshakes per site and
// the share resumed.
//
//	CORPUSBOT_BENCH_SITES=200 go test -run '^$' -bench FirstPassWall -benchtime 1x ./internal/crawl
func BenchmarkFirstPassWall(b *testing.B) {
	sites := benchEnv("CORPUSBOT_BENCH_SITES", 2000)
	scale := benchEnvFloat("CORPUSBOT_BENCH_SCALE", 0.1)
	for _, n := range benchEnvInts("CORPUSBOT_BENCH_CONCURRENCY", passLevels()) {
		b.Run(fmt.Sprintf("%s=%d", passLabel, n), func(b *testing.B) {
			var m wallPass
			for b.Loop() {
				m.add(runWallPass(b, sites, scale, n))
			}
			m.report(b)
		})
	}
}

// wallPass is what one pass measured.
type wallPass struct {
	runs                    int
	wall, bound, floor, cpu time.Duration
	lastStart               time.Duration // when the last site's first request began
	load                    float64
	requests, sites, left   int
	violations, maxInFlight int
	shakes                  simweb.Handshakes
	tls                     bool // the sites were https: handshakes reported
	maxRSS                  int64
}

func (m *wallPass) add(p wallPass) {
	m.runs++
	m.wall += p.wall
	m.bound += p.bound
	m.floor += p.floor
	m.lastStart += p.lastStart
	m.load += p.load
	m.cpu += p.cpu
	m.requests += p.requests
	m.sites += p.sites
	m.left += p.left
	m.violations += p.violations
	m.maxInFlight = max(m.maxInFlight, p.maxInFlight)
	m.shakes.Full += p.shakes.Full
	m.shakes.Resumed += p.shakes.Resumed
	m.maxRSS = max(m.maxRSS, p.maxRSS)
	m.tls = m.tls || p.tls
}

func (m wallPass) report(b *testing.B) {
	n := float64(m.runs)
	b.ReportMetric(m.wall.Seconds()/n, "wall-s")
	b.ReportMetric(m.bound.Seconds()/n, "bound-s")
	b.ReportMetric(m.wall.Seconds()/m.bound.Seconds(), "wall/bound")
	b.ReportMetric(m.floor.Seconds()/n, "floor-s")
	b.ReportMetric(m.wall.Seconds()/m.floor.Seconds(), "wall/floor")
	if m.lastStart > 0 { // BenchmarkFirstPassWall's: every site may begin at once
		b.ReportMetric(m.lastStart.Seconds()/n, "last-site-start-s")
	}
	b.ReportMetric(m.load/n, "loadavg")
	b.ReportMetric(float64(m.requests)/n, "requests")
	b.ReportMetric(float64(m.requests)/m.wall.Seconds(), "req/s")
	b.ReportMetric(m.cpu.Seconds()/m.wall.Seconds(), "cpu-cores")
	b.ReportMetric(float64(m.sites)/n, "sites")
	b.ReportMetric(float64(m.left)/n, "sites-left")
	b.ReportMetric(float64(m.violations), "violations")
	b.ReportMetric(float64(m.maxInFlight), "max-sites-in-flight")
	b.ReportMetric(m.cpu.Seconds()/n, "cpu-s")
	b.ReportMetric(float64(m.requests)/m.cpu.Seconds(), "req/cpu-s")
	b.ReportMetric(float64(m.maxRSS)/(1<<20), "peak-rss-MiB")
	if m.tls {
		b.ReportMetric(float64(m.shakes.Total())/float64(m.sites), "handshakes/site")
		b.ReportMetric(100*float64(m.shakes.Resumed)/float64(max(1, m.shakes.Total())), "resumed-%")
	}
}

// wallSpecs is the demo population repeated to n blogs, each copy under
// new host names (press-1.example becomes press-1-c7.example in copy 7).
func wallSpecs(n int, scale float64) []demo.Spec {
	var out []demo.Spec
	for c := 0; len(out) < n; c++ {
		for _, s := range demo.DemoSpecs(scale) {
			if len(out) == n {
				break
			}
			s.Host = strings.TrimSuffix(s.Host, ".example") + fmt.Sprintf("-c%d.example", c)
			s.HTTPS = benchTLS()
			out = append(out, s)
		}
	}
	return out
}

// runWallPass crawls a fresh population once, on the real clock.
func runWallPass(b *testing.B, sites int, scale float64, atOnce int) wallPass {
	app.TuneGC(os.LookupEnv) // as the binary runs
	ctx := context.Background()
	pop := demo.NewPopulation(wallSpecs(sites, scale), 13)
	web := simweb.New(simweb.WithLatency(simweb.Latency{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Seed: 13}))
	defer web.Close()
	pop.Serve(web)
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "crawl.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := config.Defaults()
	s.FeedBudget = max(s.FeedBudget, sites)
	c := scaleCrawler(b, s, db.DB, web, fetch.RealClock{}, nil)
	sitesAtOnce(c, atOnce)
	for _, u := range pop.Homepages() {
		if _, _, err := db.AddSource(ctx, u, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	load0 := loadAverage()
	began, u0 := time.Now(), rusage()
	if err := c.Once(ctx); err != nil {
		b.Errorf("round: %v", err)
	}
	end := rusage()
	p := wallPass{runs: 1, wall: time.Since(began), cpu: end.cpu - u0.cpu, sites: sites, load: (load0 + loadAverage()) / 2,
		shakes: web.Handshakes(), tls: benchTLS(), maxRSS: end.maxRSS}
	reqs := web.Requests()
	p.requests = len(reqs)
	site, bound := busiestSite(reqs)
	p.bound = bound
	delays := map[string]time.Duration{}
	for _, b := range pop.Blogs {
		if b.Robots == farm.RobotsCrawlDelay {
			delays[b.Host] = farm.CrawlDelay
		}
	}
	floorSite, floor := politenessFloor(reqs, s, delays)
	p.floor = floor
	p.maxInFlight = concurrentSites(reqs)
	p.left, err = sitesLeft(ctx, db.DB, began)
	if err != nil {
		b.Error(err)
	}
	v := web.Violations(s.UserAgent, s.ProductToken(), func(string) time.Duration { return s.MinGap })
	p.violations = len(v)
	for _, line := range v[:min(len(v), 5)] {
		b.Error(line)
	}
	first, last, idle := siteTimeline(reqs, site, s.MinGap)
	starts := siteStarts(reqs, began)
	p.lastStart = starts[len(starts)-1]
	b.Logf("%s=%d: %d sites, %d requests in %v; sites began within %v (half by %v); busiest site %s %v (%.2f×: began at +%v, ended %v before the round, waited %v on the crawler beyond MIN_GAP); floor %s %v (%.2f×); %d sites left; CPU %v; peak sites at once %d; load %.1f; TLS handshakes %d full, %d resumed; %d connections",
		passLabel, atOnce, sites, p.requests, p.wall.Round(time.Millisecond), starts[len(starts)-1].Round(time.Millisecond), starts[len(starts)/2].Round(time.Millisecond), site, bound.Round(time.Millisecond),
		p.wall.Seconds()/bound.Seconds(), first.Sub(began).Round(time.Millisecond), began.Add(p.wall).Sub(last).Round(time.Millisecond), idle.Round(time.Millisecond),
		floorSite, floor.Round(time.Millisecond), p.wall.Seconds()/floor.Seconds(),
		p.left, p.cpu.Round(time.Millisecond), p.maxInFlight, p.load, p.shakes.Full, p.shakes.Resumed, web.Dials(""))
	return p
}

// siteTimeline is where the site's requests sat in the pass, as the server
// saw them: its first request's start, its last one's end, and the time it
// waited between requests beyond the gap politeness asks (minGap; a
// Crawl-delay site counts its longer gap as waiting): what wall ÷ bound is
// made of besides the site's own span.
func siteTimeline(reqs []simweb.Request, site string, minGap time.Duration) (first, last time.Time, idle time.Duration) {
	rs := simweb.BySite(reqs)[site]
	slices.SortFunc(rs, func(a, b simweb.Request) int { return a.Start.Compare(b.Start) })
	for i, r := range rs {
		if i == 0 {
			first = r.Start
		} else if gap := r.Start.Sub(rs[i-1].End); gap > minGap {
			idle += gap - minGap
		}
		if r.End.After(last) {
			last = r.End
		}
	}
	return first, last, idle
}

// siteStarts is when each site's first request began, after began, in
// order: how long the frontier took to set every site going.
func siteStarts(reqs []simweb.Request, began time.Time) []time.Duration {
	var out []time.Duration
	for _, rs := range simweb.BySite(reqs) {
		first := rs[0].Start
		for _, r := range rs {
			if r.Start.Before(first) {
				first = r.Start
			}
		}
		out = append(out, first.Sub(began))
	}
	slices.Sort(out)
	return out
}

// concurrentSites is the most requests in flight at one moment, as the
// server saw them: with one request at a time per site, the most sites
// being asked something at once.
func concurrentSites(reqs []simweb.Request) int {
	type edge struct {
		at    time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(reqs))
	for _, r := range reqs {
		edges = append(edges, edge{r.Start, 1}, edge{r.End, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends before starts at the same instant
	})
	n, peak := 0, 0
	for _, e := range edges {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}

// politenessFloor is the longest any site's requests must take however
// fast the crawler: its responses' own durations plus, between two
// requests, the gap politeness asks (MIN_GAP, its Crawl-delay, a
// catalogue page's CATALOGUE_PAGE_DELAY) or the gap taken, if shorter. The
// recorded span (the bound) also holds the time the site waited on the
// crawler between requests, which a slow crawler stretches; the floor
// does not.
func politenessFloor(reqs []simweb.Request, s config.Settings, crawlDelay map[string]time.Duration) (site string, floor time.Duration) {
	for st, d := range siteFloors(reqs, s, crawlDelay) {
		if d > floor {
			site, floor = st, d
		}
	}
	return site, floor
}

// siteFloors is every site's floor (see politenessFloor).
func siteFloors(reqs []simweb.Request, s config.Settings, crawlDelay map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for st, rs := range simweb.BySite(reqs) {
		var d time.Duration
		for i, r := range rs {
			d += r.End.Sub(r.Start)
			if i == 0 {
				continue
			}
			want := max(s.MinGap, crawlDelay[r.Host])
			if strings.Contains(r.URI, "?paged=") || strings.Contains(r.URI, "?page=") {
				want = max(want, s.CataloguePageDelay)
			}
			d += min(want, r.Start.Sub(rs[i-1].End))
		}
		out[st] = d
	}
	return out
}
