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
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// The audited first pass: an outside audit crawls a simulated web of 200
// sites — a few with deep catalogues behind a Crawl-delay, many small
// ones, some whose robots.txt answers 503 — and divides the pass's wall
// time by its politeness bound, the busiest site's floor (its requests'
// own durations plus the gaps politeness asks between them). auditShapes
// is that web as the farm can make it; auditPass runs a first pass over it
// and reads the figure, and where the time above the floor went, from the
// server's record.

// auditShapes is the audit's population in farm shapes: one deep site in
// about seventy (RSS with ?paged=N carrying whole posts, 11–20 of them, a
// sitemap and Crawl-delay: 5: a floor of about 26 s), small blogs of every
// demo shape (the busiest of them, probing every well-known feed and
// sitemap path, about 27 s), and one in six answering 503 to robots.txt.
// The audit's figure (1.178× the floor) is what a round held open until
// +30 s by robots.txt retries makes of a floor of about 26 s.
func auditShapes() []farm.Shape {
	deep := farm.Shape{Name: "deep", Weight: 3, Feed: farm.FeedRSS, Full: true, Catalogue: farm.CataloguePaged, Sitemap: farm.SitemapRobots,
		Robots: farm.RobotsCrawlDelay, MinPosts: 11, MaxPosts: 20}
	out := []farm.Shape{deep}
	for _, sh := range farm.DemoShapes() {
		sh.Weight, sh.MinPosts, sh.MaxPosts = 12, 2, 12
		if sh.Robots == farm.Robots503 {
			sh.Weight = 36
		}
		out = append(out, sh)
	}
	return out
}

// auditRun is one audited pass, as the server recorded it.
type auditRun struct {
	began, ended time.Time // the round's, on its clock
	reqs         []simweb.Request
	floors       map[string]time.Duration
	crawlDelay   map[string]time.Duration // by host
	violations   []string
	settings     config.Settings
}

// auditPass crawls sites farm sites of shapes once, on an event clock
// (simulated: the crawler's CPU costs no simulated time) or on the real
// clock, responses taking 20–200 ms.
func auditPass(tb testing.TB, sites int, shapes []farm.Shape, simulated bool) auditRun {
	tb.Helper()
	app.TuneGC(os.LookupEnv)
	ctx := context.Background()
	s := config.Defaults()
	s.FeedBudget = max(s.FeedBudget, sites)
	var clock fetch.Clock = fetch.RealClock{}
	now := time.Now
	latency := simweb.Latency{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Seed: 13}
	start := time.Now().Truncate(time.Second)
	if simulated {
		ec := simweb.NewEventClock(farmStart)
		tb.Cleanup(ec.Close)
		clock, now, latency.Sleep, start = ec, ec.Now, ec.Sleep, farmStart
	}
	web := simweb.New(simweb.WithClock(now), simweb.WithLatency(latency))
	tb.Cleanup(web.Close)
	f := farm.New(farm.Config{Start: start, Now: now, Shapes: shapes, Seed: 45})
	web.Fallback(f.Handler)
	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "crawl.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if cc, ok := clock.(*simweb.EventClock); ok {
		db.SetCommitClock(cc)
	}
	c := scaleCrawler(tb, s, db.DB, web, clock, nil)
	if err := bulkSources(ctx, db, sites, farmHost, "http", now()); err != nil {
		tb.Fatal(err)
	}
	run := auditRun{began: clock.Now(), crawlDelay: map[string]time.Duration{}, settings: s}
	if err := c.Once(ctx); err != nil {
		tb.Errorf("round: %v", err)
	}
	run.ended = clock.Now()
	run.reqs = web.Requests()
	for i := range sites {
		if f.Site(farmHost(i), 1).Shape.Robots == farm.RobotsCrawlDelay {
			run.crawlDelay[farmHost(i)] = farm.CrawlDelay
		}
	}
	run.floors = siteFloors(run.reqs, s, run.crawlDelay)
	run.violations = web.Violations(s.UserAgent, s.ProductToken(), func(site string) time.Duration {
		return max(s.MinGap, run.crawlDelay[site])
	})
	return run
}

// busiest is the site with the longest floor, and that floor.
func (a auditRun) busiest() (site string, floor time.Duration) {
	for st, d := range a.floors {
		if d > floor || (d == floor && st < site) {
			site, floor = st, d
		}
	}
	return site, floor
}

func (a auditRun) wall() time.Duration { return a.ended.Sub(a.began) }

// ratio is wall ÷ the busiest site's floor: the audit's figure.
func (a auditRun) ratio() float64 {
	_, floor := a.busiest()
	return a.wall().Seconds() / floor.Seconds()
}

// timeline is where the busiest site's time went, request by request, as
// the server saw it: when it began after the round's start, each gap
// taken less the gap politeness asked (what the crawler added), and how
// long the round went on after its last request — with the site whose
// request ended last, and that request.
type timeline struct {
	site                string
	floor, wall         time.Duration
	firstOffset         time.Duration   // the busiest site's first request after the round began
	extra               time.Duration   // the gaps beyond what politeness asks, summed
	extras              []time.Duration // each gap's excess, in order
	extraLines          []string        // the largest excesses, described
	tail                time.Duration   // the round after the busiest site's last request ended
	lastSite, lastReq   string          // the request that ended last in the round
	lastOffset          time.Duration   // its end after the round began
	requests            int
	retriedRobots503    int     // sites whose robots.txt answered 503 and was asked again
	lastRobotsRetry     float64 // seconds after the round's start
	sitesWithRequests   int
	lastFirstRequestOff time.Duration // the last site to begin, after the round began
}

func (a auditRun) timeline() timeline {
	site, floor := a.busiest()
	t := timeline{site: site, floor: floor, wall: a.wall()}
	bySite := simweb.BySite(a.reqs)
	rs := bySite[site]
	t.requests = len(rs)
	type excess struct {
		d    time.Duration
		line string
	}
	var big []excess
	var lastEnd time.Time
	for i, r := range rs {
		if i == 0 {
			t.firstOffset = r.Start.Sub(a.began)
		} else {
			want := max(a.settings.MinGap, a.crawlDelay[r.Host])
			if strings.Contains(r.URI, "?paged=") || strings.Contains(r.URI, "?page=") {
				want = max(want, a.settings.CataloguePageDelay)
			}
			d := r.Start.Sub(rs[i-1].End) - want
			t.extras = append(t.extras, d)
			t.extra += max(0, d)
			big = append(big, excess{d, fmt.Sprintf("#%d %s (%d) +%v after %s", i, r.URI, r.Status, d.Round(time.Millisecond), rs[i-1].URI)})
		}
		if r.End.After(lastEnd) {
			lastEnd = r.End
		}
	}
	t.tail = a.ended.Sub(lastEnd)
	slices.SortFunc(big, func(x, y excess) int { return int(y.d - x.d) })
	for _, e := range big[:min(len(big), 6)] {
		t.extraLines = append(t.extraLines, e.line)
	}
	var last simweb.Request
	for _, r := range a.reqs {
		if r.End.After(last.End) {
			last = r
		}
	}
	t.lastSite, t.lastReq, t.lastOffset = last.Site, last.URI, last.End.Sub(a.began)
	for _, rs := range bySite {
		t.sitesWithRequests++
		t.lastFirstRequestOff = max(t.lastFirstRequestOff, rs[0].Start.Sub(a.began))
		robots := 0
		for _, r := range rs {
			if r.URI == "/robots.txt" && r.Status == 503 {
				robots++
				if robots > 1 {
					t.lastRobotsRetry = max(t.lastRobotsRetry, r.Start.Sub(a.began).Seconds())
				}
			}
		}
		if robots > 1 {
			t.retriedRobots503++
		}
	}
	return t
}

func (t timeline) String() string {
	return fmt.Sprintf("busiest %s: floor %v, %d requests; wall %v = %.3f× the floor; began at +%v; gaps beyond politeness %v in all; round went on %v after its last request (last to end: %s%s at +%v); %d sites, the last began at +%v; %d robots.txt 503 asked again, the last at +%.1fs; largest excesses: %s",
		t.site, t.floor.Round(time.Millisecond), t.requests, t.wall.Round(time.Millisecond), t.wall.Seconds()/t.floor.Seconds(),
		t.firstOffset.Round(time.Millisecond), t.extra.Round(time.Millisecond), t.tail.Round(time.Millisecond),
		t.lastSite, t.lastReq, t.lastOffset.Round(time.Millisecond), t.sitesWithRequests, t.lastFirstRequestOff.Round(time.Millisecond),
		t.retriedRobots503, t.lastRobotsRetry, strings.Join(t.extraLines, "; "))
}

// BenchmarkAuditedFirstPass is the audit's figure on the farm's copy of
// its web: 200 sites (CORPUSBOT_BENCH_AUDIT_SITES) in auditShapes, one
// first pass, wall ÷ the busiest site's floor. CORPUSBOT_BENCH_AUDIT_CLOCK=real
// runs it on the real clock (the crawler's CPU then counts), else on the
// event clock.
//
//	go test -run '^$' -bench AuditedFirstPass -benchtime 1x ./internal/crawl
func BenchmarkAuditedFirstPass(b *testing.B) {
	sites := benchEnv("CORPUSBOT_BENCH_AUDIT_SITES", 200)
	simulated := os.Getenv("CORPUSBOT_BENCH_AUDIT_CLOCK") != "real"
	for b.Loop() {
		load := loadAverage()
		run := auditPass(b, sites, auditShapes(), simulated)
		t := run.timeline()
		b.ReportMetric(run.ratio(), "wall/floor")
		b.ReportMetric(run.wall().Seconds(), "wall-s")
		b.ReportMetric(t.floor.Seconds(), "floor-s")
		b.ReportMetric(t.firstOffset.Seconds(), "busiest-start-s")
		b.ReportMetric(t.extra.Seconds(), "busiest-extra-gap-s")
		b.ReportMetric(t.tail.Seconds(), "tail-s")
		b.ReportMetric(float64(len(run.reqs)), "requests")
		b.ReportMetric(float64(len(run.violations)), "violations")
		b.ReportMetric(load, "loadavg")
		for _, v := range run.violations[:min(5, len(run.violations))] {
			b.Error(v)
		}
		b.Log(t)
		if site := os.Getenv("CORPUSBOT_BENCH_AUDIT_SHOW"); site != "" {
			for _, r := range simweb.BySite(run.reqs)[site] {
				b.Logf("%s %s%s %d at +%v–%v", site, r.Host, r.URI, r.Status, r.Start.Sub(run.began), r.End.Sub(run.began))
			}
		}
	}
}
