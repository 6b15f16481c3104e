// Package binarytest drives the built corpusbot binary as an outsider
// would: it builds cmd/corpusbot once per test process, runs it with an
// environment of the test's choosing and a fresh database, and serves it a
// simulated web (package simweb) through a loopback HTTP proxy, so that the
// binary's own private-address guard stays on (the simulated hosts are
// TEST-NET-3 literals, 203.0.113.N, judged public without a DNS lookup and
// handed to the proxy) while every request it sends is recorded on the
// server side.
//
// Tests that use it are end-to-end checks of the contract
// (shared/CONTRACT.md): they see only exit codes, stdout, stderr, files and
// what the servers saw.
package binarytest

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
	buildDir  string
)

// root is the module's root: this file's directory, two levels up.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Binary builds cmd/corpusbot (once per test process) and returns its path.
// A test that cannot build it fails; under -short it is skipped.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("binary end-to-end checks are skipped under -short")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "corpusbot-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		buildPath = filepath.Join(dir, "corpusbot")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/corpusbot")
		cmd.Dir = root()
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build ./cmd/corpusbot: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Cleanup removes the built binary; call it from TestMain after m.Run.
func Cleanup() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// Env is a binary's environment: the test's own PATH and HOME and nothing
// else of the parent's (no CORPUSBOT_* leaks in, no proxy variables), plus
// what the test sets.
type Env struct {
	Dir  string            // working directory; the database is Dir/corpusbot.db unless DB is set in Vars
	Vars map[string]string // CORPUSBOT_* settings and others, without the prefix added
}

// NewEnv is an environment with a fresh working directory and database and
// compressed default timings.
func NewEnv(t testing.TB) *Env {
	t.Helper()
	dir := t.TempDir()
	return &Env{Dir: dir, Vars: map[string]string{
		"CORPUSBOT_DB":                   filepath.Join(dir, "corpusbot.db"),
		"CORPUSBOT_MIN_GAP":              "50ms",
		"CORPUSBOT_CATALOGUE_PAGE_DELAY": "50ms",
		"CORPUSBOT_LOG_LEVEL":            "info",
	}}
}

// Set sets one variable and returns e.
func (e *Env) Set(name, value string) *Env {
	e.Vars[name] = value
	return e
}

// DB is the database file the binary uses.
func (e *Env) DB() string { return e.Vars["CORPUSBOT_DB"] }

// Proxy serves web through a loopback HTTP proxy and points the binary at
// it (HTTP_PROXY), with the guard on.
func (e *Env) Proxy(t testing.TB, web *simweb.Web) *Env {
	t.Helper()
	srv := httptest.NewServer(web.Handler())
	t.Cleanup(srv.Close)
	e.Vars["HTTP_PROXY"] = srv.URL
	e.Vars["http_proxy"] = srv.URL
	return e
}

// Result is what one run of the binary gave.
type Result struct {
	Stdout, Stderr string
	Code           int           // exit status; -1 when killed by the deadline
	Took           time.Duration // wall time
}

// Run runs the binary with args and e, for at most limit, and returns what
// it printed and its exit status. It does not fail the test on a non-zero
// exit: the caller asserts what it expects.
func (e *Env) Run(t testing.TB, limit time.Duration, args ...string) Result {
	t.Helper()
	return e.RunInput(t, limit, "", args...)
}

// RunInput is Run with stdin.
func (e *Env) RunInput(t testing.TB, limit time.Duration, stdin string, args ...string) Result {
	t.Helper()
	bin := Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = e.Dir
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String(), Took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.Code = -1
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s %v: %v", bin, args, err)
	}
	return r
}

// Start starts the binary in the background; the returned stop sends it
// SIGINT, waits up to grace for it to end (then kills it) and returns what
// it gave.
func (e *Env) Start(t testing.TB, args ...string) (stop func(grace time.Duration) Result) {
	t.Helper()
	bin := Binary(t)
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.Dir
	cmd.Env = e.environ()
	var out, errb SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s %v: %v", bin, args, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var once sync.Once
	var res Result
	stop = func(grace time.Duration) Result {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			var err error
			select {
			case err = <-done:
			case <-time.After(grace):
				cmd.Process.Kill()
				<-done
				res.Code = -1
			}
			res.Stdout, res.Stderr, res.Took = out.String(), errb.String(), time.Since(start)
			var exit *exec.ExitError
			if res.Code == 0 && errors.As(err, &exit) {
				res.Code = exit.ExitCode()
			}
		})
		return res
	}
	t.Cleanup(func() { stop(5 * time.Second) })
	return stop
}

func (e *Env) environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir()}
	for k, v := range e.Vars {
		env = append(env, k+"="+v)
	}
	return env
}

// SyncBuffer is a bytes.Buffer safe for a writer and a reader at once:
// the output of a process or goroutine read while it runs.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines splits output into its non-empty lines.
func Lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
