package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// farmStart is the morning of the farm's day 1, when the first pass begins.
var farmStart = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

// farmWorld is the crawler of `corpusbot run` on an event clock over a
// generated population (package farm, through simweb's fallback): the
// clock moves only when every site in flight waits, so the simulated time
// of a round is what the wall clock would show with a crawler that costs
// nothing, and the wall time is what the crawler (and the in-process
// server) cost in CPU. Responses take 20–200 ms of simulated time.
type farmWorld struct {
	clock *simweb.EventClock
	web   *simweb.Web
	farm  *farm.Farm
	db    *sqlite.DB
	c     *crawl.Crawler
	s     config.Settings

	mu    sync.Mutex
	tally map[string]int // records by purpose and answer, "feed 200"
}

func newFarmWorld(b *testing.B, fc farm.Config, sites int, host func(int) string, tweak func(*config.Settings)) *farmWorld {
	b.Helper()
	app.TuneGC(os.LookupEnv) // as the binary runs
	ctx := context.Background()
	w := &farmWorld{clock: simweb.NewEventClock(farmStart), s: config.Defaults(), tally: map[string]int{}}
	b.Cleanup(w.clock.Close)
	if tweak != nil {
		tweak(&w.s)
	}
	w.web = simweb.New(simweb.WithClock(w.clock.Now), simweb.CountOnly(),
		simweb.WithLatency(simweb.Latency{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Seed: 13, Sleep: w.clock.Sleep}))
	b.Cleanup(w.web.Close)
	fc.Start, fc.Now = farmStart, w.clock.Now
	fc.HTTPS = benchTLS()
	if benchRealSizes() {
		fc.Sizes = farm.SizesReal
	}
	w.farm = farm.New(fc)
	w.web.Fallback(w.farm.Handler)
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "crawl.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	w.db = db
	db.SetCommitClock(w.clock)
	w.c = scaleCrawler(b, w.s, db.DB, w.web, w.clock, w.observe)
	if err := bulkSources(ctx, db, sites, host, benchScheme(), farmStart); err != nil {
		b.Fatal(err)
	}
	return w
}

func (w *farmWorld) observe(r model.RequestRecord) {
	key := fmt.Sprintf("%s %d", r.Purpose, r.Status)
	if r.Status == 0 {
		key = fmt.Sprintf("%s %s", r.Purpose, r.Outcome)
	}
	w.mu.Lock()
	w.tally[key]++
	w.mu.Unlock()
}

// takeTally returns the records counted since the last call.
func (w *farmWorld) takeTally() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.tally
	w.tally = map[string]int{}
	return t
}

// bulkSources adds sites sources (scheme://host(i)/) in one transaction, as
// AddSource would add them one by one (the same columns): a hundred
// thousand single-row commits would take the setup minutes.
func bulkSources(ctx context.Context, db *sqlite.DB, n int, host func(int) string, scheme string, now time.Time) error {
	tx, err := db.Writer().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO sources(url, added, site) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	for i := range n {
		u := scheme + "://" + host(i) + "/"
		if _, err := st.ExecContext(ctx, u, now.UnixNano(), model.SiteOfURL(u)); err != nil {
			return fmt.Errorf("source %s: %w", u, err)
		}
	}
	return tx.Commit()
}

// farmHost names farm site i.
func farmHost(i int) string { return fmt.Sprintf("blog%06d.example", i) }

// pass is one measured round (or rounds) of a farm benchmark.
type pass struct {
	wall, sim, cpu time.Duration
	requests       int64 // as the server counted them
	connections    int   // the crawler opened
	shakes         simweb.Handshakes
	group          store.GroupStats
	records        map[string]int
	kinds          []kindShare
}

// measure runs fn (rounds of the crawler) with the CPU profiled.
func (w *farmWorld) measure(b *testing.B, fn func() error) pass {
	b.Helper()
	w.takeTally()
	t0, r0, u0, c0, h0 := time.Now(), w.web.Tally().Requests, rusage(), w.web.Dials(""), w.web.Handshakes()
	sim0 := w.clock.Now()
	g0 := w.db.GroupStats()
	prof := startProfile(b)
	if err := fn(); err != nil {
		b.Errorf("round: %v", err)
	}
	p := pass{wall: time.Since(t0), cpu: rusage().cpu - u0.cpu, requests: w.web.Tally().Requests - r0, sim: w.clock.Now().Sub(sim0),
		connections: w.web.Dials("") - c0}
	h1 := w.web.Handshakes()
	p.shakes = simweb.Handshakes{Full: h1.Full - h0.Full, Resumed: h1.Resumed - h0.Resumed}
	p.kinds = prof.stop(b)
	p.records = w.takeTally()
	g1 := w.db.GroupStats()
	p.group = store.GroupStats{Batches: g1.Batches - g0.Batches, Writes: g1.Writes - g0.Writes}
	return p
}

func (p pass) perCPU() float64 { return float64(p.requests) / p.cpu.Seconds() }

// reportTLS reports the pass's TLS handshakes per site and the share of
// them resumed, under CORPUSBOT_BENCH_TLS.
func (p pass) reportTLS(b *testing.B, prefix string, sites int) {
	if !benchTLS() {
		return
	}
	b.ReportMetric(float64(p.shakes.Total())/float64(sites), prefix+"handshakes/site")
	b.ReportMetric(100*float64(p.shakes.Resumed)/float64(max(1, p.shakes.Total())), prefix+"resumed-%")
	b.ReportMetric(float64(p.requests)/float64(max(1, p.shakes.Total())), prefix+"requests/handshake")
}

// perCrawlerCPU is perCPU without the simulated server's share of the CPU
// profile: what the crawler alone would spend, the web being elsewhere in
// a real crawl. Zero without a profile.
func (p pass) perCrawlerCPU() float64 {
	for _, k := range p.kinds {
		if k.name == serverKind && k.share < 1 {
			return float64(p.requests) / (p.cpu.Seconds() * (1 - k.share))
		}
	}
	return 0
}

// count adds up the records of the given purposes (all if none) whose key
// ends with suffix ("" for all).
func (p pass) count(suffix string, purposes ...model.Purpose) int {
	n := 0
	for k, v := range p.records {
		var purpose string
		var rest string
		fmt.Sscanf(k, "%s %s", &purpose, &rest)
		if suffix != "" && rest != suffix {
			continue
		}
		if len(purposes) > 0 {
			ok := false
			for _, want := range purposes {
				ok = ok || model.Purpose(purpose) == want
			}
			if !ok {
				continue
			}
		}
		n += v
	}
	return n
}

func (p pass) log(b *testing.B, name string) {
	b.Logf("%s: %d requests on %d connections (TLS handshakes: %d full, %d resumed) in %v of simulated time, %v wall, %v CPU: %.0f requests per CPU-second (%.0f without the simulated server's share); %d store writes (%.1f a request) in %d transactions (%.1f writes each); records %v",
		name, p.requests, p.connections, p.shakes.Full, p.shakes.Resumed, p.sim.Round(time.Second), p.wall.Round(time.Millisecond), p.cpu.Round(time.Millisecond), p.perCPU(), p.perCrawlerCPU(),
		p.group.Writes, float64(p.group.Writes)/float64(max(1, p.requests)), p.group.Batches, float64(p.group.Writes)/float64(max(1, p.group.Batches)), p.records)
}

// BenchmarkFarmThroughput is issue 13's second figure: CPU throughput on
// the simulated clock. "feeds": CORPUSBOT_BENCH_FARM_SITES (default
// 100,000) sites whose feeds carry full content (farm.FeedShapes: RSS,
// Atom and JSON Feed, paged and rel=next catalogues, sitemaps named,
// well-known and indexed, Crawl-delay, no robots.txt), so that no page is
// owed: a first pass, then a second day on which every feed, robots.txt
// and sitemap is asked again (FEED_SCHEDULE fixed, FEED_BUDGET the number
// of sites) and mostly answers 304. "pages": CORPUSBOT_BENCH_PAGE_SITES
// (default 10,000) sites with summary feeds, whose every post is a page
// to fetch and extract; its page requests are also reported per CPU-second
// on their own, the rest of its CPU counted at the feeds' rate. Requests
// per second of process CPU (getrusage): the simulated web is served in
// the same process, and the CPU profile's "server" share estimates its
// part. Peak RSS is the process's (getrusage maxrss), with what it was
// made of at the largest of the once-a-second samples (watchMemory). Goals: ≥ 1,000
// requests per CPU-second for the feed and sitemap work, RSS ≤ 1 GiB.
//
// CORPUSBOT_BENCH_TLS=1 makes the sites https (and reports TLS handshakes
// per site, the share resumed and requests per handshake);
// CORPUSBOT_BENCH_SIZES=real gives them real blogs' sizes (farm.SizesReal:
// pages 50–500 KB, full-content feeds 100 KB–1 MB).
//
//	CORPUSBOT_BENCH_FARM_SITES=5000 go test -run '^$' -bench FarmThroughput -benchtime 1x ./internal/crawl
func BenchmarkFarmThroughput(b *testing.B) {
	var feedRate float64 // day 1 of "feeds", for "pages" to subtract
	b.Run("feeds", func(b *testing.B) {
		sites := benchEnv("CORPUSBOT_BENCH_FARM_SITES", 100_000)
		for b.Loop() {
			w := newFarmWorld(b, farm.Config{Shapes: farm.FeedShapes(), MinPosts: 3, MaxPosts: 30, Active: 0.1}, sites, farmHost,
				func(s *config.Settings) {
					s.FeedSchedule = config.ScheduleFixed
					s.FeedBudget = sites
				})
			ctx := context.Background()
			stopWatch := watchMemory()
			day1 := w.measure(b, func() error { return w.c.Once(ctx) })
			day1.log(b, "day 1")
			left, err := w.db.CountDueSites(ctx, store.SiteQuery{Now: w.clock.Now(), SitemapsBefore: farmStart})
			if err != nil {
				b.Fatal(err)
			}
			// A day after the first pass ended: every feed read in it is due.
			w.clock.Advance(max(w.farm.DayStart(2).Add(time.Minute).Sub(w.clock.Now()), 24*time.Hour+time.Minute))
			day2 := w.measure(b, func() error { return w.c.Once(ctx) })
			day2.log(b, "day 2")
			newPosts := 0
			for i := range sites {
				newPosts += w.farm.Site(farmHost(i), 2).NewOn(2)
			}
			rss, mem := rusage().maxRSS, stopWatch()
			feedRate = day1.perCPU()
			b.ReportMetric(float64(sites), "sites")
			b.ReportMetric(float64(day1.requests), "d1-requests")
			b.ReportMetric(float64(day1.connections), "d1-connections")
			b.ReportMetric(day1.perCPU(), "d1-req/cpu-s")
			b.ReportMetric(day1.perCrawlerCPU(), "d1-req/crawler-cpu-s")
			b.ReportMetric(day1.wall.Seconds(), "d1-wall-s")
			b.ReportMetric(day1.sim.Hours(), "d1-sim-h")
			b.ReportMetric(float64(day1.count("", model.PurposePage)), "d1-page-requests")
			b.ReportMetric(float64(left), "d1-sites-left")
			day1.reportTLS(b, "d1-", sites)
			b.ReportMetric(float64(day2.requests), "d2-requests")
			b.ReportMetric(float64(day2.connections), "d2-connections")
			b.ReportMetric(day2.perCPU(), "d2-req/cpu-s")
			b.ReportMetric(day2.perCrawlerCPU(), "d2-req/crawler-cpu-s")
			b.ReportMetric(day2.wall.Seconds(), "d2-wall-s")
			b.ReportMetric(100*float64(day2.count(fmt.Sprint(http.StatusNotModified)))/float64(max(1, day2.requests)), "d2-%304")
			b.ReportMetric(float64(newPosts), "d2-new-posts")
			day2.reportTLS(b, "d2-", sites)
			b.ReportMetric(float64(day1.requests+day2.requests)/(day1.cpu+day2.cpu).Seconds(), "req/cpu-s")
			b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
			b.ReportMetric(float64(mem.goHeld)/(1<<20), "peak-go-MiB")
			b.ReportMetric(float64(mem.heapObjects)/(1<<20), "peak-heap-objects-MiB")
			b.ReportMetric(float64(mem.other())/(1<<20), "peak-not-go-MiB")
			b.ReportMetric(float64(w.web.Tally().Overlaps), "overlaps")
			if o := w.web.Tally().Overlaps; o > 0 {
				b.Errorf("%d requests overlapped another to the same site", o)
			}
			b.Logf("%d new posts on day 2; %d sites left after day 1; clock stalls %d; peak RSS %d MiB (sampled each second: %d MiB, of which Go's runtime held %d MiB, heap objects %d MiB, and memory Go does not manage, SQLite's above all, %d MiB)",
				newPosts, left, w.clock.Stalls(), rss>>20, mem.rss>>20, mem.goHeld>>20, mem.heapObjects>>20, mem.other()>>20)
			reportKinds(b, "d1", day1.kinds)
			reportKinds(b, "d2", day2.kinds)
		}
	})
	b.Run("pages", func(b *testing.B) {
		sites := benchEnv("CORPUSBOT_BENCH_PAGE_SITES", 10_000)
		for b.Loop() {
			w := newFarmWorld(b, farm.Config{Shapes: farm.PageShapes(), MinPosts: 3, MaxPosts: 30}, sites, farmHost, nil)
			ctx := context.Background()
			day1 := w.measure(b, func() error { return w.c.Once(ctx) })
			day1.log(b, "pages, day 1")
			pages := day1.count("", model.PurposePage)
			homepages := sites // discovery reads each homepage as a page
			pageReqs := pages - homepages
			// The CPU of everything but the post pages, at the feed
			// population's rate, taken off the total.
			pageCPU := day1.cpu.Seconds()
			if feedRate > 0 {
				pageCPU -= float64(day1.requests-int64(pageReqs)) / feedRate
			}
			b.ReportMetric(float64(sites), "sites")
			b.ReportMetric(float64(day1.requests), "requests")
			b.ReportMetric(float64(pageReqs), "page-requests")
			b.ReportMetric(day1.perCPU(), "req/cpu-s")
			if feedRate > 0 && pageCPU > 0 {
				b.ReportMetric(float64(pageReqs)/pageCPU, "page-req/cpu-s")
			}
			b.ReportMetric(day1.wall.Seconds(), "wall-s")
			b.ReportMetric(day1.sim.Hours(), "sim-h")
			b.ReportMetric(float64(rusage().maxRSS)/(1<<20), "peak-rss-MiB")
			day1.reportTLS(b, "", sites)
			reportKinds(b, "pages", day1.kinds)
		}
	})
}
