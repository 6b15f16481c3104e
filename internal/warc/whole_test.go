package warc

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/nlnwa/gowarc/v3"

	"corpus.blog/corpusbot/internal/warc/warctest"
)

// faults is the state of the disk the faulty files write to.
type faults struct {
	// full makes every write fail with writeErr (nil: a short write that
	// returns no error) after taking keep(len) bytes of the first such
	// write (none when keep is nil) and none of the later ones.
	full     bool
	keep     func(n int) int
	writeErr error
	// truncateErr and syncErr are what Truncate and Sync return; nil: they
	// work.
	truncateErr, syncErr error
}

// faultyFile is a real, locked file whose writes, truncation and sync fail
// as its faults say.
type faultyFile struct {
	*os.File
	faults *faults
}

func (f faultyFile) Write(p []byte) (int, error) {
	if !f.faults.full {
		return f.File.Write(p)
	}
	keep := 0
	if f.faults.keep != nil {
		keep = min(f.faults.keep(len(p)), len(p))
		f.faults.keep = nil
	}
	n, err := f.File.Write(p[:keep])
	if err != nil {
		return n, err
	}
	return n, f.faults.writeErr
}

func (f faultyFile) Truncate(size int64) error {
	if f.faults.truncateErr != nil {
		return f.faults.truncateErr
	}
	return f.File.Truncate(size)
}

func (f faultyFile) Sync() error {
	if f.faults.syncErr != nil {
		return f.faults.syncErr
	}
	return f.File.Sync()
}

func openFaulty(t *testing.T, dir string, opts Options) (*Writer, *faults) {
	t.Helper()
	ff := &faults{}
	w, err := openWith(dir, opts, func(path string) (warcFile, error) {
		f, err := createLocked(path)
		if err != nil {
			return nil, err
		}
		return faultyFile{File: f.(*os.File), faults: ff}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w, ff
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// targets reads a file back (failing on any record that is not whole and
// valid) and returns its exchanges' URLs, checking that it is a warcinfo
// then request-response pairs.
func targets(t *testing.T, path string) []string {
	t.Helper()
	records := warctest.ReadFile(t, path)
	defer func() {
		for _, r := range records {
			r.Close()
		}
	}()
	if len(records) == 0 || records[0].WarcRecord.Type() != gowarc.Warcinfo || len(records)%2 != 1 {
		t.Fatalf("%s: %d records, not a warcinfo and exchanges", path, len(records))
	}
	var urls []string
	for i := 1; i < len(records); i += 2 {
		req, resp := records[i].WarcRecord, records[i+1].WarcRecord
		u := req.WarcHeader().Get(gowarc.WarcTargetURI)
		if req.Type() != gowarc.Request || resp.Type() != gowarc.Response || resp.WarcHeader().Get(gowarc.WarcTargetURI) != u {
			t.Fatalf("%s: records %d and %d are not one exchange", path, i, i+1)
		}
		urls = append(urls, u)
	}
	return urls
}

func urlsOf(xs []Exchange) []string {
	var urls []string
	for _, x := range xs {
		urls = append(urls, x.URL)
	}
	return urls
}

// TestFailedWriteIsCutBack: a write that fails partway (a full disk, an
// I/O error, a short write) leaves the file at the end of its last whole
// exchange, under ".open" until Close; the next writes go on in the same
// file and Close gives it its final name, every record in it whole.
func TestFailedWriteIsCutBack(t *testing.T) {
	cases := []struct {
		name    string
		fail    int // the exchange whose write fails
		keep    func(n int) int
		err     error
		wantErr error
	}{
		{"disk full, nothing written", 3, nil, syscall.ENOSPC, syscall.ENOSPC},
		{"disk full, one byte written", 3, func(int) int { return 1 }, syscall.ENOSPC, syscall.ENOSPC},
		{"disk full, half written", 3, func(n int) int { return n / 2 }, syscall.ENOSPC, syscall.ENOSPC},
		{"disk full, all but one byte written", 3, func(n int) int { return n - 1 }, syscall.ENOSPC, syscall.ENOSPC},
		{"I/O error, half written", 5, func(n int) int { return n / 2 }, syscall.EIO, syscall.EIO},
		{"short write without an error", 2, func(n int) int { return n / 3 }, nil, io.ErrShortWrite},
		{"first exchange", 0, func(n int) int { return n / 2 }, syscall.ENOSPC, syscall.ENOSPC},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w, disk := openFaulty(t, dir, Options{Now: fixedClock()})
			xs := exchanges(8, 5)
			ctx := context.Background()
			for _, x := range xs[:c.fail] {
				if err := w.Write(ctx, x); err != nil {
					t.Fatal(err)
				}
			}
			if c.fail == 0 {
				// The file is begun (its warcinfo written) by the
				// first Write: begin it with a Write to throw away.
				if err := w.Write(ctx, Exchange{URL: "https://warm.example/", Status: 200}); err != nil {
					t.Fatal(err)
				}
			}
			open := w.Files()[0] + openSuffix
			before := size(t, open)

			disk.full, disk.keep, disk.writeErr = true, c.keep, c.err
			err := w.Write(ctx, xs[c.fail])
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("Write on a failing disk = %v, want %v", err, c.wantErr)
			}
			if got := size(t, open); got != before {
				t.Errorf("file is %d bytes after the failed write, want %d (its last whole exchange)", got, before)
			}
			if exists(w.Files()[0]) {
				t.Errorf("%s has its final name while still being written", w.Files()[0])
			}
			// Still full: the next write fails too, and writes nothing.
			disk.keep = nil
			if err := w.Write(ctx, xs[c.fail+1]); err == nil {
				t.Fatal("Write on a full disk succeeded")
			}

			disk.full = false
			for _, x := range xs[c.fail+2:] {
				if err := w.Write(ctx, x); err != nil {
					t.Fatalf("Write after the disk has room again: %v", err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if n, first := w.Failures(); n != 2 || !errors.Is(first, c.wantErr) {
				t.Errorf("Failures() = %d, %v; want 2 and the first failure", n, first)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if !slices.Equal(files, w.Files()) || len(files) != 1 || strings.HasSuffix(files[0], openSuffix) {
				t.Fatalf("files %v, Files() %v: want one, named whole", files, w.Files())
			}
			want := urlsOf(append(slices.Clone(xs[:c.fail]), xs[c.fail+2:]...))
			got := targets(t, files[0])
			if c.fail == 0 {
				got = got[1:] // the warming exchange
			}
			if !slices.Equal(got, want) {
				t.Errorf("exchanges read back:\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// TestFullDiskBeforeAFile: a file whose warcinfo cannot be written is
// removed; the next Write, with room, begins a whole one.
func TestFullDiskBeforeAFile(t *testing.T) {
	dir := t.TempDir()
	w, disk := openFaulty(t, dir, Options{Now: fixedClock()})
	xs := exchanges(3, 6)
	disk.full, disk.keep, disk.writeErr = true, func(n int) int { return n / 2 }, syscall.ENOSPC
	if err := w.Write(context.Background(), xs[0]); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Write = %v, want ENOSPC", err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Fatalf("files left by a file that could not be begun: %v", files)
	}
	disk.full = false
	for _, x := range xs[1:] {
		if err := w.Write(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 || !slices.Equal(targets(t, files[0]), urlsOf(xs[1:])) {
		t.Errorf("files %v", files)
	}
}

// TestTornFileKeepsOpenName: a file that cannot be cut back after a failed
// write, or synced when complete, never gets its final name; the next
// start's Recover completes it whole.
func TestTornFileKeepsOpenName(t *testing.T) {
	t.Run("truncate fails", func(t *testing.T) {
		dir := t.TempDir()
		w, disk := openFaulty(t, dir, Options{Now: fixedClock()})
		xs := exchanges(6, 7)
		ctx := context.Background()
		for _, x := range xs[:3] {
			if err := w.Write(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		torn := w.Files()[0]
		disk.full, disk.keep, disk.writeErr, disk.truncateErr = true, func(n int) int { return n / 2 }, syscall.ENOSPC, syscall.EIO
		err := w.Write(ctx, xs[3])
		if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "left as") {
			t.Fatalf("Write = %v, want ENOSPC, then EIO and where the file is left", err)
		}
		disk.full, disk.truncateErr = false, nil
		for _, x := range xs[4:] {
			if err := w.Write(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if exists(torn) || !exists(torn+openSuffix) {
			t.Fatalf("torn file: final name %v, .open %v; want only .open", exists(torn), exists(torn+openSuffix))
		}
		files := w.Files()
		if len(files) != 2 || files[0] != torn+openSuffix || !slices.Equal(targets(t, files[1]), urlsOf(xs[4:])) {
			t.Fatalf("Files() = %v", files)
		}
		done, err := Recover(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(done) != 1 || done[0].Path != torn || done[0].Records != 7 || done[0].Cut <= 0 {
			t.Fatalf("Recover = %+v, want %s with 7 records and the torn bytes cut", done, torn)
		}
		if got := targets(t, torn); !slices.Equal(got, urlsOf(xs[:3])) {
			t.Errorf("recovered file holds %v", got)
		}
	})
	t.Run("sync fails at close", func(t *testing.T) {
		dir := t.TempDir()
		w, disk := openFaulty(t, dir, Options{Now: fixedClock()})
		if err := w.Write(context.Background(), exchanges(1, 8)[0]); err != nil {
			t.Fatal(err)
		}
		name := w.Files()[0]
		disk.syncErr = syscall.EIO
		if err := w.Close(); !errors.Is(err, syscall.EIO) {
			t.Fatalf("Close = %v, want EIO", err)
		}
		if exists(name) || !exists(name+openSuffix) {
			t.Fatalf("a file not synced got its final name")
		}
	})
	t.Run("sync fails at rotation", func(t *testing.T) {
		dir := t.TempDir()
		w, disk := openFaulty(t, dir, Options{Now: fixedClock(), MaxFileSize: 1})
		disk.syncErr = syscall.EIO
		xs := exchanges(2, 9)
		if err := w.Write(context.Background(), xs[0]); !errors.Is(err, syscall.EIO) {
			t.Fatalf("Write that rotates = %v, want EIO", err)
		}
		disk.syncErr = nil
		if err := w.Write(context.Background(), xs[1]); err != nil {
			t.Fatal(err)
		}
		files := w.Files()
		if len(files) != 2 || !strings.HasSuffix(files[0], openSuffix) || strings.HasSuffix(files[1], openSuffix) || !exists(files[0]) || !exists(files[1]) {
			t.Fatalf("Files() = %v, want the first left open, the second whole", files)
		}
	})
}

// wholeFile writes n exchanges with a Writer and returns the file's bytes
// and its records' offsets (the end as the last).
func wholeFile(t testing.TB, n int, seed uint64) (data []byte, offsets []int64) {
	t.Helper()
	dir := t.TempDir()
	w, err := Open(dir, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range exchanges(n, seed) {
		if err := w.Write(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := w.Files()[0]
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range warctest.ReadFile(t, path) {
		offsets = append(offsets, r.Offset)
		r.Close()
	}
	return data, append(offsets, int64(len(data)))
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// TestRecoverOpenFile: a file left under ".open" with a torn end is cut
// back to its last whole record (a lone request cut too) and renamed;
// one without a whole record is removed.
func TestRecoverOpenFile(t *testing.T) {
	const n = 4
	data, off := wholeFile(t, n, 10)
	// off: 0 warcinfo, 1+2i request i, 2+2i response i, 1+2n the end.
	lastReq, lastResp, end := off[2*n-1], off[2*n], off[2*n+1]
	cases := []struct {
		name        string
		content     []byte
		wantEnd     int64
		wantRecords int
	}{
		{"whole", data, end, 1 + 2*n},
		{"half of the last response", data[:lastResp+(end-lastResp)/2], lastReq, 2*n - 1},
		{"the last response's trailer missing", data[:end-4], lastReq, 2*n - 1},
		{"a request without its response", data[:lastResp], lastReq, 2*n - 1},
		{"ten bytes of the last request", data[:lastReq+10], lastReq, 2*n - 1},
		{"garbage after", append(slices.Clone(data), "not gzip at all"...), end, 1 + 2*n},
		{"a gzip member that is not a record after", append(slices.Clone(data), gzipped("hello")...), end, 1 + 2*n},
		{"a record cut in its content, in a whole member", append(slices.Clone(data), gzipped("WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 100\r\n\r\nshort\r\n\r\n")...), end, 1 + 2*n},
		{"the second exchange cut", data[:off[3]+100], off[3], 3},
		{"only the warcinfo", data[:off[1]], off[1], 1},
		{"half the warcinfo", data[:off[1]/2], 0, 0},
		{"empty", nil, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			final := filepath.Join(dir, "corpusbot-host-123-20260301120000-00001.warc.gz")
			if err := os.WriteFile(final+openSuffix, c.content, 0o644); err != nil {
				t.Fatal(err)
			}
			// Not ours: left alone.
			other := filepath.Join(dir, "notes.txt.open")
			os.WriteFile(other, []byte("x"), 0o644)
			done, err := Recover(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(done) != 1 {
				t.Fatalf("Recover = %+v, want one file", done)
			}
			r := done[0]
			if r.Records != c.wantRecords || r.Cut != int64(len(c.content))-c.wantEnd {
				t.Errorf("Recover = %+v, want %d records and %d bytes cut", r, c.wantRecords, int64(len(c.content))-c.wantEnd)
			}
			if exists(final+openSuffix) || !exists(other) {
				t.Errorf(".open left: %v; other file removed: %v", exists(final+openSuffix), !exists(other))
			}
			if c.wantRecords == 0 {
				if !r.Removed || exists(final) {
					t.Errorf("a file without a whole record: %+v, final name exists %v", r, exists(final))
				}
				return
			}
			got, err := os.ReadFile(final)
			if err != nil {
				t.Fatal(err)
			}
			if r.Path != final || !bytes.Equal(got, data[:c.wantEnd]) {
				t.Errorf("completed as %s with %d bytes, want %s with the first %d", r.Path, len(got), final, c.wantEnd)
			}
			targets(t, final)
		})
	}
}

// TestScanWholeEveryCut: a file cut at any byte scans to the end of the
// last whole exchange before the cut.
func TestScanWholeEveryCut(t *testing.T) {
	data, off := wholeFile(t, 3, 11)
	// Exchange boundaries: after the warcinfo, after each response (the
	// end of the file the last).
	var bounds []int64
	for i := 1; i < len(off); i += 2 {
		bounds = append(bounds, off[i])
	}
	step := max(1, len(data)/3000)
	for cut := 0; cut <= len(data); cut += step {
		want, records := int64(0), 0
		for i, b := range bounds {
			if b <= int64(cut) {
				want, records = b, 1+2*i
			}
		}
		got, err := scanWhole(bytes.NewReader(data[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		if got.end != want || got.records != records {
			t.Fatalf("cut at %d: scanned to %d (%d records), want %d (%d)", cut, got.end, got.records, want, records)
		}
	}
}

// TestRecoverLeavesLiveFiles: the file a Writer holds is not completed by
// another Open in the same directory (as a second process would), and
// its Writer completes it as usual.
func TestRecoverLeavesLiveFiles(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{Prefix: "live"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), exchanges(1, 12)[0]); err != nil {
		t.Fatal(err)
	}
	live := w.Files()[0] + openSuffix
	before := size(t, live)
	w2, err := Open(dir, Options{Prefix: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if done, err := Recover(dir); err != nil || len(done) != 0 {
		t.Fatalf("Recover with a live file = %+v, %v", done, err)
	}
	if size(t, live) != before {
		t.Fatal("live file changed")
	}
	if err := w.Write(context.Background(), exchanges(2, 12)[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(targets(t, w.Files()[0])) != 2 {
		t.Error("live file lost an exchange")
	}
}

// TestRecoverRefusesTakenName: a ".open" file whose final name exists is
// not renamed over it.
func TestRecoverRefusesTakenName(t *testing.T) {
	data, _ := wholeFile(t, 1, 13)
	dir := t.TempDir()
	final := filepath.Join(dir, "a.warc.gz")
	os.WriteFile(final, []byte("kept"), 0o644)
	os.WriteFile(final+openSuffix, data, 0o644)
	if _, err := Recover(dir); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("Recover = %v, want an error saying the name is taken", err)
	}
	if got, _ := os.ReadFile(final); string(got) != "kept" || !exists(final+openSuffix) {
		t.Error("a file was replaced")
	}
	if _, err := Open(dir, Options{}); err == nil {
		t.Error("Open succeeded with a file it cannot complete")
	}
}

// TestOpenChecksDirectory: a directory that cannot be created or written
// fails Open with a message naming it; one that does not exist is made.
func TestOpenChecksDirectory(t *testing.T) {
	base := t.TempDir()
	afile := filepath.Join(base, "afile")
	os.WriteFile(afile, []byte("x"), 0o644)
	for _, dir := range []string{filepath.Join(afile, "warc"), afile} {
		_, err := Open(dir, Options{})
		if err == nil || !strings.Contains(err.Error(), dir+" is not a writable directory") {
			t.Errorf("Open(%s) = %v", dir, err)
		}
	}
	if os.Geteuid() != 0 { // root writes whatever the mode says
		ro := filepath.Join(base, "ro")
		os.Mkdir(ro, 0o555)
		if _, err := Open(ro, Options{}); err == nil {
			t.Errorf("Open of a read-only directory succeeded")
		}
	}
	fresh := filepath.Join(base, "a", "b")
	w, err := Open(fresh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if entries, err := os.ReadDir(fresh); err != nil || len(entries) != 0 {
		t.Errorf("directory made: %v, left %v (the probe should be gone)", err, entries)
	}
}

// TestOpenCompletesLeftFiles: Open completes a file a killed process left
// and says so in the log.
func TestOpenCompletesLeftFiles(t *testing.T) {
	data, off := wholeFile(t, 2, 14)
	dir := t.TempDir()
	left := filepath.Join(dir, "corpusbot-h-1-20260301000000-00001.warc.gz")
	os.WriteFile(left+openSuffix, data[:len(data)-7], 0o644)
	var log bytes.Buffer
	w, err := Open(dir, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if size(t, left) != off[3] || exists(left+openSuffix) {
		t.Errorf("left file: %d bytes, want %d; .open still there %v", size(t, left), off[3], exists(left+openSuffix))
	}
	if !strings.Contains(log.String(), "WARC file left open completed") || !strings.Contains(log.String(), "records=3") {
		t.Errorf("log: %s", log.String())
	}
}

func FuzzScanWhole(f *testing.F) {
	data, off := wholeFile(f, 2, 15)
	f.Add(data)
	f.Add(data[:off[2]+5])
	f.Add(data[:len(data)-1])
	f.Add([]byte{})
	f.Add(gzipped("WARC/1.1\r\nContent-Length: 2\r\n\r\nab\r\n\r\n"))
	f.Add(append(gzipped("WARC/1.1\r\nContent-Length: 0\r\n\r\n\r\n\r\n"), gzipped("WARC/1.0\r\nWARC-Type: request\r\nContent-Length: 1\r\n\r\nx\r\n\r\n")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := scanWhole(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("scan of bytes in memory failed: %v", err)
		}
		if got.end < 0 || got.end > int64(len(data)) || got.records < 0 || (got.records == 0) != (got.end == 0) {
			t.Fatalf("scanned to %d with %d records, of %d bytes", got.end, got.records, len(data))
		}
		// What is whole stays whole: the cut file scans the same.
		again, err := scanWhole(bytes.NewReader(data[:got.end]))
		if err != nil || again != got {
			t.Fatalf("the cut file scans to %+v, %v; the whole to %+v", again, err, got)
		}
	})
}

func ExampleRecover() {
	dir, _ := os.MkdirTemp("", "warc-example-")
	defer os.RemoveAll(dir)
	// A file a killed process left: no record in it.
	os.WriteFile(filepath.Join(dir, "corpusbot-20260301-00001.warc.gz.open"), []byte("WARC/1.1\r\nWARC-Ty"), 0o644)
	done, err := Recover(dir)
	fmt.Println(len(done), done[0].Removed, err)
	// Output: 1 true <nil>
}

// BenchmarkWrite writes the exchanges of the read-back test (pages, binary
// bodies, empty ones) one after another into one file.
func BenchmarkWrite(b *testing.B) {
	w, err := Open(b.TempDir(), Options{Now: fixedClock()})
	if err != nil {
		b.Fatal(err)
	}
	xs := exchanges(60, 1)
	var bytes int64
	for _, x := range xs {
		bytes += int64(len(x.Body))
	}
	b.SetBytes(bytes / int64(len(xs)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := w.Write(context.Background(), xs[i%len(xs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
