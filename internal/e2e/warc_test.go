package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestWarcDirNotWritable: a WARC_DIR that cannot be made or written fails
// `run --once` and `articles fetch` at once, with one line naming it, and
// not one request is sent.
func TestWarcDirNotWritable(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	afile := filepath.Join(base, "afile")
	if err := os.WriteFile(afile, []byte("not a directory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(base, "readonly")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, dir string }{
		{"a file in the path", filepath.Join(afile, "warc")},
		{"a file", afile},
		{"read-only", readOnly},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.dir == readOnly && os.Geteuid() == 0 {
				t.Skip("root writes into a directory whatever its mode says; the file in the path stands for it")
			}
			web := simweb.New()
			defer web.Close()
			host := fmt.Sprintf("203.0.113.%d", 40+i)
			blog(web.Host(host), 2)
			env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_WARC_DIR", c.dir)
			if r := env.Run(t, time.Minute, "sources", "add", "http://"+host+"/"); r.Code != 0 {
				t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
			}
			asked := len(web.Requests())
			for _, args := range [][]string{{"run", "--once"}, {"articles", "fetch"}} {
				r := env.Run(t, time.Minute, args...)
				lines := binarytest.Lines(r.Stderr)
				want := "WARC_DIR: warc: " + c.dir + " is not a writable directory"
				if r.Code == 0 || len(lines) != 1 || !strings.Contains(lines[0], want) {
					t.Errorf("%v: exit %d, stderr:\n%s\nwant a failure, one line with %q", args, r.Code, r.Stderr, want)
				}
			}
			if got := web.Requests(); len(got) != asked {
				t.Errorf("%d requests sent with an unwritable WARC_DIR: %v", len(got)-asked, got[asked:])
			}
		})
	}
}

// bigBlog is blog with posts of incompressible text, so that a small disk
// fills after a few pages.
func bigBlog(host *simweb.Host, posts, size int) []string {
	urls := blog(host, posts)
	for i := 1; i <= posts; i++ {
		noise := make([]byte, size)
		rand.Read(noise)
		host.Put(fmt.Sprintf("/posts/%d/", i), "text/html; charset=utf-8", fmt.Sprintf(`<!doctype html><html><head><title>Post %d</title></head>
<body><article><h1>Post %d</h1><p>Words of a real post, long enough to extract, then noise.</p><p>%s</p></article></body></html>`,
			i, i, base64.StdEncoding.EncodeToString(noise)))
	}
	return urls
}

// mountTmpfs mounts a tmpfs of size at dir for the test, or skips the
// test when this machine will not (mounting needs root or CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("a full disk needs a small tmpfs, and mounting one failed here (%v: %s); the unit tests of internal/warc inject the full disk instead", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

// warcFiles reads every file in dir with gowarc's reader: each must be a
// completed .warc.gz of a warcinfo and whole request-response pairs. It
// returns the response records' target URIs.
func warcFiles(t *testing.T, dir string) (responses []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".warc.gz") {
			t.Errorf("%s: not a completed .warc.gz", e.Name())
			continue
		}
		r, err := gowarc.NewWarcFileReader(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		var types []gowarc.RecordType
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Errorf("%s: record %d: %v", e.Name(), len(types), err)
				break
			}
			if v, err := rec.WarcRecord.ValidateDigest(); err != nil || len(v) > 0 {
				t.Errorf("%s: record %d: digests %v %v", e.Name(), len(types), v, err)
			}
			types = append(types, rec.WarcRecord.Type())
			if rec.WarcRecord.Type() == gowarc.Response {
				responses = append(responses, rec.WarcRecord.WarcHeader().Get(gowarc.WarcTargetURI))
			}
			rec.Close()
		}
		r.Close()
		if len(types) == 0 || types[0] != gowarc.Warcinfo || len(types)%2 != 1 {
			t.Errorf("%s: records %v: not a warcinfo and exchanges", e.Name(), types)
		}
		for i := 1; i+1 < len(types); i += 2 {
			if types[i] != gowarc.Request || types[i+1] != gowarc.Response {
				t.Errorf("%s: records %d, %d are %s, %s", e.Name(), i, i+1, types[i], types[i+1])
			}
		}
	}
	return responses
}

// pagesServed is how many page requests (homepages and posts, not feeds or
// robots.txt) the web answered 200.
func pagesServed(web *simweb.Web) int {
	n := 0
	for _, r := range web.Requests() {
		if r.Status == http.StatusOK && strings.HasSuffix(r.URI, "/") {
			n++
		}
	}
	return n
}

// TestWarcDiskFull: WARC_DIR on a disk that fills during the crawl. The
// crawl goes on and stores every post; every file left is whole (gowarc
// reads every record, digests right); the pages not archived are
// counted, and `run --once` exits non-zero saying how many and why.
func TestWarcDiskFull(t *testing.T) {
	t.Parallel()
	warcDir := t.TempDir()
	mountTmpfs(t, warcDir, "96k")
	web := simweb.New()
	defer web.Close()
	urls := bigBlog(web.Host("203.0.113.50"), 10, 30_000)
	env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_WARC_DIR", warcDir)
	if r := env.Run(t, time.Minute, "sources", "add", "http://203.0.113.50/"); r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}
	r := env.Run(t, 2*time.Minute, "run", "--once")
	lines := binarytest.Lines(r.Stderr)
	last := ""
	if len(lines) > 0 {
		last = lines[len(lines)-1]
	}
	if r.Code != 1 || !strings.Contains(last, "pages not archived") || !strings.Contains(last, "no space left on device") {
		t.Fatalf("run --once on a full disk: exit %d, last line %q, want 1 and the pages not archived", r.Code, last)
	}
	var notArchived int
	if _, err := fmt.Sscanf(last[strings.Index(last, "WARC_DIR: "):], "WARC_DIR: %d pages not archived", &notArchived); err != nil {
		t.Fatalf("no count in %q: %v", last, err)
	}
	logged := strings.Count(r.Stderr, "WARC record not written")

	archived := warcFiles(t, warcDir)
	served := pagesServed(web)
	if len(archived) == 0 || notArchived == 0 || len(archived)+notArchived != served || logged != notArchived {
		t.Errorf("%d pages archived + %d not (%d logged) != %d pages served", len(archived), notArchived, logged, served)
	}
	out := env.Run(t, time.Minute, "export")
	if n := strings.Count(out.Stdout, `"state":"indexed"`); out.Code != 0 || n != len(urls) {
		t.Errorf("export: exit %d, %d posts indexed, want %d: the crawl stops for no archive", out.Code, n, len(urls))
	}
	t.Logf("%d pages served, %d archived, %d not; stderr's last line: %s", served, len(archived), notArchived, last)
}

// TestWarcOpenFileCompletedAtStart: a ".open" file in WARC_DIR, left by a
// process killed in the middle of a record, is cut back to its last whole
// record and given its final name by the next run; one without a whole
// record is removed.
func TestWarcOpenFileCompletedAtStart(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	blog(web.Host("203.0.113.51"), 3)
	warcDir := filepath.Join(t.TempDir(), "warc")
	env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_WARC_DIR", warcDir)
	if r := env.Run(t, time.Minute, "sources", "add", "http://203.0.113.51/"); r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	first := warcFiles(t, warcDir)
	files, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	if len(first) < 2 || len(files) != 1 {
		t.Fatalf("first run archived %d pages in %v", len(first), files)
	}
	// As a kill leaves it: the last record half written.
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(warcDir, "corpusbot-killed-1-20260101000000-00001.warc.gz")
	if err := os.WriteFile(killed+".open", data[:len(data)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(warcDir, "corpusbot-killed-2-20260101000000-00001.warc.gz")
	if err := os.WriteFile(empty+".open", data[:20], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}

	r := env.Run(t, 2*time.Minute, "run", "--once")
	if r.Code != 0 {
		t.Fatalf("second run --once: %d %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "WARC file left open completed") || !strings.Contains(r.Stderr, "WARC file without a whole record removed") {
		t.Errorf("the completion is not logged:\n%s", r.Stderr)
	}
	if _, err := os.Stat(killed); err != nil {
		t.Fatalf("the .open file was not given its final name: %v", err)
	}
	for _, p := range []string{killed + ".open", empty + ".open", empty} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", filepath.Base(p))
		}
	}
	// warcFiles reads every file (the second run's too, if it archived
	// anything): whole. The killed one lost its last exchange, no more.
	second := warcFiles(t, warcDir)
	if want := len(first) - 1 + pagesServedSince(web, len(first)); len(second) != want {
		t.Errorf("%d pages archived after completion, want %d (the first run's but its torn last one, and the second's)", len(second), want)
	}
}

// pagesServedSince is how many pages the web served 200 beyond the first
// n.
func pagesServedSince(web *simweb.Web, n int) int {
	return pagesServed(web) - n
}

// TestWarcKilledRunCompletedAtStart: `run` killed (SIGKILL) while it holds
// its file open between rounds leaves it under ".open"; the next run
// completes it, every page archived before the kill kept.
func TestWarcKilledRunCompletedAtStart(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	urls := blog(web.Host("203.0.113.52"), 3)
	warcDir := filepath.Join(t.TempDir(), "warc")
	env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_WARC_DIR", warcDir)
	if r := env.Run(t, time.Minute, "sources", "add", "http://203.0.113.52/"); r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}
	cmd := exec.Command(binarytest.Binary(t), "run")
	cmd.Dir = env.Dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir()}
	for k, v := range env.Vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The homepage and every post archived: the round is done and the
	// file stays open until the next.
	var open string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no .open file with %d pages after 2 minutes (served %d)", len(urls)+1, pagesServed(web))
		}
		files, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.gz.open"))
		if len(files) == 1 && countResponses(files[0]) == len(urls)+1 {
			open = files[0]
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(open); err != nil {
		t.Fatalf("the killed run's file: %v", err)
	}
	r := env.Run(t, 2*time.Minute, "run", "--once")
	if r.Code != 0 || !strings.Contains(r.Stderr, "WARC file left open completed") {
		t.Fatalf("run --once after the kill: %d\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(strings.TrimSuffix(open, ".open")); err != nil {
		t.Fatalf("not completed: %v", err)
	}
	if got, want := len(warcFiles(t, warcDir)), pagesServed(web); got != want || got < len(urls)+1 {
		t.Errorf("%d pages archived, %d served", got, want)
	}
}

// countResponses counts the whole response records gowarc reads from a
// file, stopping at the first it cannot read.
func countResponses(path string) int {
	r, err := gowarc.NewWarcFileReader(path, 0)
	if err != nil {
		return 0
	}
	defer r.Close()
	n := 0
	for {
		rec, err := r.Next()
		if err != nil {
			return n
		}
		if rec.WarcRecord.Type() == gowarc.Response {
			n++
		}
		rec.Close()
	}
}
