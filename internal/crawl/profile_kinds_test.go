package crawl_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// cpuKinds is a CPU profile of part of a benchmark, its samples sorted
// into the kinds of work issue 13 asks about: each sample goes to the
// first kind any frame of its stack belongs to, in this order — the
// in-process server first (its goroutines are the simulated web's, not the
// crawler's), then the parsers and extraction, then the store, then the
// HTTP client and the fetcher.
var cpuKinds = []struct {
	name  string
	match []string // function name prefixes or fragments
}{
	{serverKind, []string{"internal/simweb.", "net/http.(*conn).serve", "internal/simweb/farm."}},
	{"extraction", []string{"internal/extract.", "go-readability", "go-shiori/dom", "internal/crawl.htmlText", "internal/crawl.(*Crawler).extract"}},
	{"feed parse", []string{"corpusbot/feed."}},
	{"sitemap parse", []string{"corpusbot/sitemap."}},
	{"robots parse", []string{"corpusbot/robots."}},
	{"store (SQLite)", []string{"internal/store", "database/sql.", "modernc.org/"}},
	// The client's TLS: handshakes (key exchange, certificate chains
	// verified) and record encryption, under CORPUSBOT_BENCH_TLS.
	{"TLS (client)", []string{"crypto/tls."}},
	{"HTTP client, fetcher", []string{"net/http.", "internal/fetch.", "net.", "compress/", "vendor/golang.org/x/net/http"}},
	{"crawler (other)", []string{"internal/crawl."}},
	{"GC, runtime", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.mcall", "runtime.morestack", "runtime.sysmon", "runtime."}},
}

// serverKind is the simulated web's kind, not the crawler's work.
const serverKind = "server (simweb, farm)"

// profiler records a CPU profile between start and stop, unless `go test
// -cpuprofile` already does (then it reports nothing).
type profiler struct {
	buf bytes.Buffer
	on  bool
}

func startProfile(tb testing.TB) *profiler {
	p := &profiler{}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		tb.Logf("no CPU profile by kind: %v", err)
		return p
	}
	p.on = true
	return p
}

// kindShare is one kind's share of the CPU profile and its heaviest
// functions (flat).
type kindShare struct {
	name  string
	cpu   time.Duration
	share float64
	top   []string // heaviest functions, flat
	by    []string // heaviest callers in package crawl (or the test), cumulative
	entry []string // heaviest entry points into the kind (its outermost frame), cumulative
}

// stop ends the profile and sorts it by kind.
func (p *profiler) stop(tb testing.TB) []kindShare {
	if !p.on {
		return nil
	}
	pprof.StopCPUProfile()
	if dir := os.Getenv("CORPUSBOT_BENCH_PROFILE_DIR"); dir != "" {
		// The raw profile too, for go tool pprof.
		f, err := os.CreateTemp(dir, "cpu-*.pprof")
		if err == nil {
			f.Write(p.buf.Bytes())
			f.Close()
			tb.Logf("CPU profile written to %s", f.Name())
		}
	}
	prof, err := profile.Parse(&p.buf)
	if err != nil {
		tb.Logf("CPU profile unreadable: %v", err)
		return nil
	}
	vi := len(prof.SampleType) - 1 // cpu nanoseconds
	byKind := make([]time.Duration, len(cpuKinds)+1)
	flat := make([]map[string]time.Duration, len(cpuKinds)+1)
	callers := make([]map[string]time.Duration, len(cpuKinds)+1)
	entries := make([]map[string]time.Duration, len(cpuKinds)+1)
	var total time.Duration
	for _, s := range prof.Sample {
		d := time.Duration(s.Value[vi])
		total += d
		k := kindOf(s)
		byKind[k] += d
		if flat[k] == nil {
			flat[k] = map[string]time.Duration{}
		}
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 {
			flat[k][s.Location[0].Line[0].Function.Name] += d
		}
		if callers[k] == nil {
			callers[k] = map[string]time.Duration{}
		}
		callers[k][callerOf(s)] += d
		if entries[k] == nil {
			entries[k] = map[string]time.Duration{}
		}
		entries[k][entryOf(s, k)] += d
	}
	var out []kindShare
	for k := range byKind {
		name := "other"
		if k < len(cpuKinds) {
			name = cpuKinds[k].name
		}
		ks := kindShare{name: name, cpu: byKind[k]}
		if total > 0 {
			ks.share = float64(byKind[k]) / float64(total)
		}
		ks.top = heaviest(flat[k], total)
		ks.by = heaviest(callers[k], total)
		ks.entry = heaviest(entries[k], total)
		out = append(out, ks)
	}
	return out
}

// heaviest lists the five heaviest of m, with their share of total.
func heaviest(m map[string]time.Duration, total time.Duration) []string {
	fns := make([]string, 0, len(m))
	for fn := range m {
		fns = append(fns, fn)
	}
	slices.SortFunc(fns, func(a, b string) int { return int(m[b] - m[a]) })
	var out []string
	for _, fn := range fns[:min(5, len(fns))] {
		out = append(out, fmt.Sprintf("%s %.1f%%", shortFunc(fn), 100*float64(m[fn])/float64(total)))
	}
	return out
}

// callerOf is the innermost function of package crawl on the sample's
// stack (the crawler step that asked for the work), "-" when none.
func callerOf(s *profile.Sample) string {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if strings.HasPrefix(line.Function.Name, "corpus.blog/corpusbot/internal/crawl.") {
				return line.Function.Name
			}
		}
	}
	return "-"
}

// entryOf is the outermost frame of the sample's stack that belongs to
// kind k: where the crawler entered that kind of work (for the store, the
// store method called).
func entryOf(s *profile.Sample, k int) string {
	if k >= len(cpuKinds) {
		return "-"
	}
	for i := len(s.Location) - 1; i >= 0; i-- {
		lines := s.Location[i].Line
		for j := len(lines) - 1; j >= 0; j-- {
			for _, m := range cpuKinds[k].match {
				if strings.Contains(lines[j].Function.Name, m) {
					return lines[j].Function.Name
				}
			}
		}
	}
	return "-"
}

func kindOf(s *profile.Sample) int {
	for k, kind := range cpuKinds {
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				for _, m := range kind.match {
					if strings.Contains(line.Function.Name, m) {
						return k
					}
				}
			}
		}
	}
	return len(cpuKinds)
}

// shortFunc drops the module path of a function name.
func shortFunc(fn string) string {
	fn = strings.TrimPrefix(fn, "corpus.blog/corpusbot/internal/")
	if i := strings.LastIndex(fn, "/"); i >= 0 && !strings.HasPrefix(fn, "crawl") {
		fn = fn[i+1:]
	}
	return fn
}

// reportKinds prints the kinds and reports each share as a metric.
func reportKinds(b *testing.B, prefix string, kinds []kindShare) {
	for _, k := range kinds {
		if k.cpu == 0 {
			continue
		}
		// Printed, not logged: the testing package cuts a benchmark's log
		// after a few lines, and this is the part worth reading.
		fmt.Printf("%s CPU %5.1f%% %-22s flat: %s\n\tentered at: %s\n\tby crawler caller: %s\n", prefix, 100*k.share, k.name,
			strings.Join(k.top, ", "), strings.Join(k.entry, ", "), strings.Join(k.by, ", "))
		b.ReportMetric(100*k.share, prefix+"-cpu%-"+metricName(k.name))
	}
}

// metricName makes a kind's name a benchmark unit: no spaces.
func metricName(s string) string {
	if i := strings.IndexAny(s, " ("); i > 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ",")
}
