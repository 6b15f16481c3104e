package crawl_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// Helpers of the scale benchmarks (issue 13): sizes from the environment,
// process CPU and peak RSS, and the crawler wired over a simulated web as
// cmd/corpusbot wires it. This file and wall_bench_test.go use only what
// the phased crawler (bfdeb9a) also has, so that scripts/bench can run the
// same harness on it for the "before" figure; what differs between the
// two lives in wall_shim_test.go.

// benchEnv reads an integer knob of the scale benchmarks, so that a quick
// run is one variable away: CORPUSBOT_BENCH_SITES=200 go test -bench ...
func benchEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchEnvFloat is benchEnv for a fraction.
func benchEnvFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil && v > 0 {
		return v
	}
	return def
}

// benchEnvInts is benchEnv for a comma-separated list.
func benchEnvInts(name string, def []int) []int {
	var out []int
	for _, f := range strings.Split(os.Getenv(name), ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && v > 0 {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return def
	}
	return out
}

// benchTLS is CORPUSBOT_BENCH_TLS=1: the scale benchmarks' sites publish
// https URLs and are added as https sources, so that every connection pays
// a TLS handshake (or resumes one), served by simweb's https server.
func benchTLS() bool { return os.Getenv("CORPUSBOT_BENCH_TLS") == "1" }

// benchScheme is the sources' scheme, "https" under benchTLS.
func benchScheme() string {
	if benchTLS() {
		return "https"
	}
	return "http"
}

// benchRealSizes is CORPUSBOT_BENCH_SIZES=real: the farm's pages and feeds
// at the sizes of real blogs (farm.SizesReal) instead of a few KB.
func benchRealSizes() bool { return os.Getenv("CORPUSBOT_BENCH_SIZES") == "real" }

// usage is the process's CPU time so far and its peak resident set.
type usage struct {
	cpu    time.Duration
	maxRSS int64 // bytes
}

func rusage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	return usage{cpu: tv(ru.Utime) + tv(ru.Stime), maxRSS: int64(ru.Maxrss) * 1024} // Linux: KiB
}

// scaleCrawler is the crawler of `corpusbot run` over db and web, on clock,
// with observe (may be nil) seeing every record before the crawler does.
func scaleCrawler(tb testing.TB, s config.Settings, db *store.DB, web *simweb.Web, clock fetch.Clock, observe func(model.RequestRecord)) *crawl.Crawler {
	tb.Helper()
	return routedCrawler(tb, s, db, webRoute(web), clock, observe)
}

// routedCrawler is scaleCrawler for a web reached by route: in this
// process or another (startSimServer).
func routedCrawler(tb testing.TB, s config.Settings, db *store.DB, route simRoute, clock fetch.Clock, observe func(model.RequestRecord)) *crawl.Crawler {
	tb.Helper()
	c := crawl.New(crawl.Config{Store: db, Clock: clock, Settings: s, Log: discard})
	f, err := fetch.New(fetch.Options{
		Settings: s, Clock: clock, Resolver: route.resolver, Dial: route.dial, Proxy: fetch.NoProxy,
		TLS: route.tls, Logger: discard, Refusals: db, OptedOut: db.OptedOut, Store: db,
		Robots: db,
		Observe: func(r model.RequestRecord) {
			if observe != nil {
				observe(r)
			}
			c.Observe(r)
		},
		Timeouts: timeoutsFor(clock),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.CloseIdleConnections)
	c.Fetcher = f
	return c
}

// busiestSite is the site whose own span — its first request's start to
// its last request's end, as the server saw them — is the longest: the
// least time any crawler keeping its gaps needs for the pass.
func busiestSite(reqs []simweb.Request) (site string, span time.Duration) {
	for s, rs := range simweb.BySite(reqs) {
		var end time.Time
		for _, r := range rs {
			if r.End.After(end) {
				end = r.End
			}
		}
		if d := end.Sub(rs[0].Start); d > span {
			site, span = s, d
		}
	}
	return site, span
}

// loadAverage is the machine's one-minute load average (0 when unknown):
// the machine is shared, and a real-clock figure means little without it.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return v
}

// timeoutsFor is the fetcher's timeouts on clock: the defaults on the real
// clock; on a simulated one, whose responses take simulated time that can
// stand still in real time while the crawler is busy elsewhere, real-time
// limits long enough never to cut a simulated response.
func timeoutsFor(clock fetch.Clock) fetch.Timeouts {
	if _, real := clock.(fetch.RealClock); real {
		return fetch.DefaultTimeouts
	}
	long := 30 * time.Minute
	return fetch.Timeouts{Dial: long, TLS: long, Header: long, Total: long}
}
