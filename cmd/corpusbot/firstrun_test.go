package main

import (
	"bytes"
	"context"
	"corpus.blog/corpusbot/internal/binarytest"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/web"
)

// serve on a SQLite path with no database creates it, says so in one log
// line, and serves the crawler page: it must be up before the first crawl.
// A database that exists is opened without that line.
func TestServeCreatesDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fresh.db")
	s := config.Defaults()
	s.DB = db
	for _, want := range []int{1, 0} { // created, then only opened
		var errOut binarytest.SyncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		addrs := make(chan net.Addr, 1)
		done := make(chan error, 1)
		env := environment{stdout: io.Discard, stderr: &errOut}
		go func() {
			done <- runSite(ctx, env, s, func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") },
				func(*web.Options) {}, func(_ *slog.Logger, a net.Addr) { addrs <- a })
		}()
		var base string
		select {
		case a := <-addrs:
			base = "http://" + a.String()
		case err := <-done:
			cancel()
			t.Fatalf("serve ended: %v\n%s", err, errOut.String())
		case <-time.After(30 * time.Second):
			cancel()
			t.Fatal("serve did not start")
		}
		resp, err := http.Get(base + "/crawler")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("/crawler: %d", resp.StatusCode)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if _, err := os.Stat(db); err != nil {
			t.Fatalf("no database made: %v", err)
		}
		if n := strings.Count(errOut.String(), "database created"); n != want {
			t.Errorf("run %d: %d lines say the database was created, want %d:\n%s", 2-want, n, want, errOut.String())
		}
	}
}

// demo --serve takes its address before the crawl: a port in use is said
// at once, with no report printed.
func TestDemoServePortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	out, errOut, code := runCLI(t, nil, nil, "demo", "--serve", ln.Addr().String())
	if code != exitFailure || out != "" || !strings.Contains(errOut, "--serve "+ln.Addr().String()) || !strings.Contains(errOut, "address already in use") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v: the demo ran before the port was tried", took)
	}
}

// A CORPUSBOT_ variable that names no setting is named in one warning on
// stderr, with the setting meant; the command goes on.
func TestMisspeltVariableWarned(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	vars := map[string]string{"CORPUSBOT_DB": db, "CORPUSBOT_MIN_GAPP": "1s", "PATH": "/bin"}
	var out, errOut bytes.Buffer
	env := environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		environ: func() []string {
			var kv []string
			for k, v := range vars {
				kv = append(kv, k+"="+v)
			}
			return kv
		}}
	if code := run(env, []string{"run", "--once"}); code != 0 {
		t.Fatalf("run --once: %d %s", code, errOut.String())
	}
	const want = "corpusbot: warning: CORPUSBOT_MIN_GAPP is not a setting and is ignored (did you mean CORPUSBOT_MIN_GAP?)\n"
	if n := strings.Count(errOut.String(), want); n != 1 {
		t.Errorf("the warning appears %d times:\n%s", n, errOut.String())
	}
	if strings.Contains(errOut.String(), "CORPUSBOT_DB is not") || strings.Contains(errOut.String(), "PATH") {
		t.Errorf("a warning of a variable that is fine:\n%s", errOut.String())
	}
}

// A colon form of a one-word command says what was meant.
func TestColonFormHints(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"export:text", `unknown command "export:text"; did you mean export --text?`},
		{"export:sources", `did you mean export --sources?`},
		{"run:once", `did you mean run --once?`},
		{"export:nothing", `export has no "nothing": corpusbot export --help lists its flags`},
		{"sources:nothing", `the sources commands are sources add, sources list, sources remove, sources pause, sources resume, sources retry`},
		{"nothing:at-all", `(corpusbot --help lists them)`},
		{"nothing", `unknown command "nothing" (corpusbot --help lists them)`},
	} {
		out, errOut, code := runCLI(t, nil, nil, tc.arg)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, %q %q; want %q", tc.arg, code, out, errOut, tc.want)
		}
	}
}
