package crawl_test

import (
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memorySample is what the process's resident set was made of at one
// moment: the part Go's runtime holds (heap, stacks, its own structures,
// less what it has given back to the kernel), and within it the heap's
// objects; the rest of the resident set is memory Go does not manage —
// SQLite's page caches and allocations (modernc's libc maps its own), and
// the binary's text.
type memorySample struct {
	rss, goHeld, heapObjects uint64
}

func (m memorySample) other() uint64 {
	if m.rss < m.goHeld {
		return 0
	}
	return m.rss - m.goHeld
}

// watchMemory samples the process's memory once a second until stop is
// called, and stop returns the sample with the largest resident set: the
// peak and what it was made of, which getrusage's maxrss does not say.
// With CORPUSBOT_BENCH_HEAP_PROFILE set to a file name, the heap profile
// is written there at every new peak, so that the file holds what the
// heap was made of at the highest one (go tool pprof -inuse_space).
func watchMemory() (stop func() memorySample) {
	var (
		mu   sync.Mutex
		peak memorySample
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	heapAt := os.Getenv("CORPUSBOT_BENCH_HEAP_PROFILE")
	take := func() {
		s := sampleMemory()
		mu.Lock()
		higher := s.rss > peak.rss
		if higher {
			peak = s
		}
		mu.Unlock()
		if higher && heapAt != "" {
			writeHeapProfile(heapAt)
		}
	}
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			take()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() memorySample {
		close(done)
		wg.Wait()
		take()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

func sampleMemory() memorySample {
	ms := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	metrics.Read(ms)
	s := memorySample{heapObjects: ms[2].Value.Uint64()}
	if total, released := ms[0].Value.Uint64(), ms[1].Value.Uint64(); total > released {
		s.goHeld = total - released
	}
	// statm's second field is the resident set in pages.
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				s.rss = pages * uint64(os.Getpagesize())
			}
		}
	}
	return s
}

// writeHeapProfile writes the heap profile to name, replacing it.
func writeHeapProfile(name string) {
	f, err := os.Create(name)
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.Lookup("heap").WriteTo(f, 0)
}
