package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// bigSitemapSite publishes on host a homepage and a sitemap of entries URLs
// of 1.3 KB (simweb.BigSitemap, generated as served: 38,000 make 49.3 MiB),
// named in robots.txt, which disallows the posts themselves: the run reads
// and stores the sitemap, and fetches none of the pages it lists (their
// fetch is refused by the rules, with no request). served counts the
// sitemap's bytes written so far.
func bigSitemapSite(web *simweb.Web, host string, entries int, served *atomic.Int64) simweb.BigSitemap {
	h := web.Host(host)
	h.Robots("User-agent: *\nDisallow: /20\nSitemap: " + h.URL("/sitemap.xml") + "\n")
	h.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>Big</title></head><body><p>A blog of long URLs.</p></body></html>`)
	g := simweb.BigSitemap{Host: host, Entries: entries, URLBytes: 1300}
	h.Handle("/sitemap.xml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.ServeHTTP(countingWriter{w, served}, r)
	}))
	return g
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// runMeasured runs the binary as Env.Run does and returns, besides its
// result, its peak resident set (the kernel's, for the child process).
func runMeasured(t *testing.T, env *binarytest.Env, limit time.Duration, args ...string) (binarytest.Result, int64) {
	t.Helper()
	cmd := exec.Command(binarytest.Binary(t), args...)
	cmd.Dir = env.Dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir()}
	for k, v := range env.Vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	r := binarytest.Result{Stdout: out.String(), Stderr: errb.String(), Took: time.Since(start), Code: cmd.ProcessState.ExitCode()}
	if err != nil && r.Code == 0 {
		r.Code = -1
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) << 10 // Linux: KiB
	}
	return r, rss
}

// TestBinaryStoresTwoBigSitemaps: two sites each with a 49 MiB sitemap of
// 38,000 URLs of 1.3 KB, read by one `sitemaps fetch` through the loopback
// proxy (the sitemap steps of the frontier `run` drives; `run --once`
// would then go on to rule out 76,000 disallowed pages, a write each): it
// ends, and every URL of both is stored. Then, on a fresh database, a
// fetch sent SIGINT while it stores them stops within seconds (issue 31:
// the writer froze for minutes, SIGINT ignored), and the next one reads
// both sitemaps again: the interrupted read marked neither read.
func TestBinaryStoresTwoBigSitemaps(t *testing.T) {
	if testing.Short() {
		t.Skip("serves and stores 100 MB of sitemaps")
	}
	const entries = 38_000
	hosts := []string{"203.0.113.31", "203.0.113.32"}
	web := simweb.New()
	defer web.Close()
	served := make([]*atomic.Int64, len(hosts))
	var gens []simweb.BigSitemap
	for i, h := range hosts {
		served[i] = &atomic.Int64{}
		gens = append(gens, bigSitemapSite(web, h, entries, served[i]))
	}
	// add records the sources, discovers them and records their sitemaps
	// (robots.txt names them).
	add := func(env *binarytest.Env) {
		t.Helper()
		args := []string{"sources", "add"}
		for _, h := range hosts {
			args = append(args, "http://"+h+"/")
		}
		if r := env.Run(t, time.Minute, args...); r.Code != 0 {
			t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
		}
		// articles fetch discovers new sources first (they have no feed).
		for _, cmd := range [][]string{{"articles", "fetch", "--limit", "10"}, {"sitemaps", "discover", "--limit", "10"}} {
			if r := env.Run(t, time.Minute, cmd...); r.Code != 0 {
				t.Fatalf("%v: %d %s", cmd, r.Code, r.Stderr)
			}
		}
	}

	env := binarytest.NewEnv(t).Proxy(t, web)
	add(env)
	r, rss := runMeasured(t, env, 5*time.Minute, "sitemaps", "fetch", "--limit", "10")
	if r.Code != 0 {
		t.Fatalf("sitemaps fetch: exit %d after %s\n%s", r.Code, r.Took, r.Stderr)
	}
	t.Logf("sitemaps fetch of two sitemaps of %d URLs of 1.3 KB: %s, peak RSS %d MiB", entries, r.Took.Round(100*time.Millisecond), rss>>20)
	out := env.Run(t, 2*time.Minute, "export")
	if out.Code != 0 {
		t.Fatalf("export: %d %s", out.Code, out.Stderr)
	}
	for _, g := range gens {
		n := strings.Count(out.Stdout, `"url":"http://`+g.Host+`/`)
		if n != entries {
			t.Errorf("%s: %d posts exported, want %d", g.Host, n, entries)
		}
		for _, i := range []int{0, entries / 2, entries - 1} {
			if !strings.Contains(out.Stdout, `"url":"`+g.URL(i)+`"`) {
				t.Errorf("%s: post %d not exported", g.Host, i)
			}
		}
	}

	// A fresh database; SIGINT once a third of a sitemap has been served
	// (so its first chunks are being stored).
	env = binarytest.NewEnv(t).Proxy(t, web)
	add(env)
	base := served[0].Load() + served[1].Load()
	stop := env.Start(t, "sitemaps", "fetch", "--limit", "10")
	deadline := time.Now().Add(2 * time.Minute)
	for served[0].Load()+served[1].Load()-base < 17<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("the fetch read no sitemap in 2 minutes")
		}
		time.Sleep(10 * time.Millisecond)
	}
	signalled := time.Now()
	r = stop(time.Minute)
	took := time.Since(signalled)
	if r.Code == -1 {
		t.Fatalf("sitemaps fetch ignored SIGINT for a minute and was killed\n%s", r.Stderr)
	}
	t.Logf("SIGINT while storing: stopped in %s (exit %d)", took.Round(10*time.Millisecond), r.Code)
	if took > 10*time.Second {
		t.Errorf("sitemaps fetch took %s to stop after SIGINT, want a few seconds", took)
	}
	// Nothing marked the sitemaps read: the next fetch reads both again.
	before := [2]int64{served[0].Load(), served[1].Load()}
	if r := env.Run(t, 2*time.Minute, "sitemaps", "fetch", "--limit", "10"); r.Code != 0 {
		t.Fatalf("sitemaps fetch after SIGINT: %d %s", r.Code, r.Stderr)
	}
	for i, g := range gens {
		if served[i].Load() == before[i] {
			t.Errorf("%s: its sitemap was not read again after the interrupted fetch", g.Host)
		}
	}
}
