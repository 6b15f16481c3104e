package sqlite

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

// millionSources is the scheduler-scale figure of the benchmarks issue.
const millionSources = 1_000_000

// BenchmarkMillionSources measures the scheduler's batch choice over
// 1,000,000 sources (one active feed each, their last reads spread over 500
// hours, and 100,000 indexed posts), and what each source costs to keep:
//
//	go test -run '^$' -bench MillionSources -benchtime 10x ./internal/store/sqlite
//
// ns/op is one `articles fetch --limit 300` batch choice (FeedsDue) with a
// warm cache, each batch polled (untimed)
// before the next is chosen; first-batch-ms is the first one after opening. disk-B/source
// is the database file (checkpointed) divided by the sources, feed rows and
// the posts included; rss-MiB is the whole test process's resident memory after
// the choices (SQLite's page cache lives outside the Go heap, so heap-MiB
// alone would flatter it). Building the database (about 450 MB, written
// twice: to the WAL and, at the checkpoint, into the file) takes about 30 s
// on tmpfs and is not timed; phases are logged. Skipped with -short and
// under the race detector.
func BenchmarkMillionSources(b *testing.B) {
	if testing.Short() || raceOn {
		b.Skip("builds a database of 1,000,000 sources")
	}
	ctx := context.Background()
	path := filepath.Join(benchDir(b), "million.db")
	d, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	fill(b, d, millionSources, millionSources/10)
	built := time.Since(begin)
	b.Logf("built %d sources in %v", millionSources, built)
	// Reopen, so that the first choice meets a cold page cache as a freshly
	// started crawler would (closing checkpoints the WAL into the file).
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	if d, err = Open(ctx, path); err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.Logf("closed and reopened at %v", time.Since(begin))

	activeBefore, disallowedBefore := t0.Add(-24*time.Hour), t0.Add(-7*24*time.Hour)
	begin = time.Now()
	due, err := d.FeedsDue(ctx, t0, activeBefore, disallowedBefore, 300)
	first := time.Since(begin)
	if err != nil || len(due) != 300 {
		b.Fatalf("first batch: %d feeds, %v", len(due), err)
	}
	begin = time.Now()
	if _, err := d.PostsDue(ctx, 0, time.Now(), 300); err != nil {
		b.Fatal(err)
	}
	postsDue := time.Since(begin)
	begin = time.Now()
	if _, err := d.SourcesToDiscover(ctx, t0, 300); err != nil {
		b.Fatal(err)
	}
	toDiscover := time.Since(begin)

	// Each batch is polled before the next is chosen, as `run` does: the
	// poll (not timed) stores the read, which gives back the checkout and sends
	// the feed to the back of the rotation.
	poll := func(feeds []store.Feed) {
		b.StopTimer()
		defer b.StartTimer()
		for _, f := range feeds {
			f.LastRead, f.Checked = t0, t0
			if err := d.UpdateFeed(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	}
	poll(due)
	for b.Loop() {
		due, err := d.FeedsDue(ctx, t0, activeBefore, disallowedBefore, 300)
		if err != nil || len(due) != 300 {
			b.Fatalf("batch: %d feeds, %v", len(due), err)
		}
		poll(due)
	}
	b.StopTimer()

	if _, err := d.Writer().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	var disk int64
	for _, suffix := range []string{"", "-wal"} {
		if st, err := os.Stat(path + suffix); err == nil {
			disk += st.Size()
		}
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(first.Microseconds())/1000, "first-batch-ms")
	b.ReportMetric(float64(postsDue.Microseconds())/1000, "posts-due-ms")
	b.ReportMetric(float64(toDiscover.Microseconds())/1000, "to-discover-ms")
	b.ReportMetric(float64(disk)/millionSources, "disk-B/source")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	if rss, ok := residentBytes(); ok {
		b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
	}
	b.ReportMetric(built.Seconds(), "build-s")
}

// benchDir is a temporary directory on tmpfs when the machine has one. On
// this project's shared VM disk, checkpointing the freshly built 450 MB took
// four minutes, which measures the disk and not the scheduler; the batch
// choice itself reads a few dozen pages either way.
func benchDir(b *testing.B) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "corpusbot-million-"); err == nil {
			b.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return b.TempDir()
}

// residentBytes is the process's resident set (VmRSS), where Linux says it.
func residentBytes() (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
