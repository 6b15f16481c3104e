package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// The hosts of the first-run check: one whose robots.txt answers 503
// whatever is asked, one whose robots.txt request is reset.
const (
	robots503Host   = "203.0.113.71"
	robotsResetHost = "203.0.113.72"
)

// resetReason is how a reset through the proxy reads: the connection
// closed or reset, or no answer at all, as the proxy's close comes before
// or after the request is written.
const resetReason = `(connection closed|connection reset|no answer)`

// The README's first line on a source the crawler cannot read explains
// itself through the binary alone: the first run says why in its log and
// progress lines claim no ETA while nothing has finished; the second run,
// which finds nothing due, says why nothing happened (the sources wait
// for a retry, until when, after what failure) and exits 0 having asked
// the sites nothing; export --sources carries each source's error.
func TestBinaryFirstRunExplainsItself(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	t.Cleanup(web.Close)
	down := web.Host(robots503Host)
	blog(down, 2)
	down.Handle("/robots.txt", simweb.Status(http.StatusServiceUnavailable))
	reset := web.Host(robotsResetHost)
	blog(reset, 2)
	reset.Handle("/robots.txt", simweb.Reset())
	// robots.txt is asked again once the site's back-off allows (a failure
	// doubles MIN_GAP): with MIN_GAP 5s, 10 s after the failure, so that
	// the run's first progress line (after 5 s) comes while no site has
	// finished.
	env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_MIN_GAP", "5s")
	addSources(t, env, robots503Host, robotsResetHost)

	first := env.Run(t, 3*time.Minute, "run", "--once")
	if first.Code == -1 {
		t.Fatalf("first run did not end within 3 minutes:\n%s", first.Stderr)
	}
	t.Logf("first run: exit %d after %v", first.Code, first.Took.Round(time.Second))
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`source=http://` + robots503Host + `/ .*why="robots.txt unreachable: status 503"`),
		regexp.MustCompile(`source=http://` + robotsResetHost + `/ .*why="robots.txt unreachable: ` + resetReason + `"`),
	} {
		if !want.MatchString(first.Stderr) {
			t.Errorf("the first run does not say %s:\n%s", want, first.Stderr)
		}
	}
	for _, line := range binarytest.Lines(first.Stderr) {
		if strings.Contains(line, "msg=progress") && strings.Contains(line, "sites_done=0") && strings.Contains(line, "eta=0s") {
			t.Errorf("a progress line claims an ETA with no site finished: %s", line)
		}
	}
	if !strings.Contains(first.Stderr, "eta=unknown") {
		t.Errorf("no progress line says the ETA is unknown:\n%s", first.Stderr)
	}
	asked := len(web.RequestsTo(robots503Host)) + len(web.RequestsTo(robotsResetHost))

	second := env.Run(t, time.Minute, "run", "--once")
	if second.Code != 0 {
		t.Fatalf("second run: exit %d\n%s", second.Code, second.Stderr)
	}
	nothing := regexp.MustCompile(`nothing_due="2 sources waiting for a retry, the next at \S+ \(in [0-9hms.]+\), last failure: robots.txt unreachable: [^"]+"`)
	if !nothing.MatchString(second.Stderr) {
		t.Errorf("the second run does not say why it did nothing:\n%s", second.Stderr)
	}
	if now := len(web.RequestsTo(robots503Host)) + len(web.RequestsTo(robotsResetHost)); now != asked {
		t.Errorf("the second run asked the sites %d more times, with their retries not due", now-asked)
	}

	out := env.Run(t, time.Minute, "export", "--sources")
	if out.Code != 0 {
		t.Fatalf("export --sources: %d %s", out.Code, out.Stderr)
	}
	type sourceState struct {
		Source string  `json:"source"`
		State  string  `json:"state"`
		Error  *string `json:"error"` // a pointer: a line without the field is told apart
	}
	got := map[string]sourceState{}
	for _, line := range binarytest.Lines(out.Stdout) {
		var l sourceState
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got[l.Source] = l
	}
	for host, want := range map[string]*regexp.Regexp{
		robots503Host:   regexp.MustCompile(`^robots.txt unreachable: status 503$`),
		robotsResetHost: regexp.MustCompile(`^robots.txt unreachable: ` + resetReason + `$`),
	} {
		s := got["http://"+host+"/"]
		if s.Error == nil || !want.MatchString(*s.Error) || s.State != "unreachable" {
			t.Errorf("%s: state %q, error %q; want unreachable and %q\n%s", host, s.State, deref(s.Error), want, out.Stdout)
		}
	}
}

// serve on a path with no database creates it, says so in one log line,
// and serves the crawler page before any crawl.
func TestBinaryServeFreshPath(t *testing.T) {
	t.Parallel()
	env := binarytest.NewEnv(t)
	db := filepath.Join(env.Dir, "fresh", "corpusbot.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Set("CORPUSBOT_DB", db)
	addr := freeAddr(t)
	stop := env.Start(t, "serve", "--addr", addr)
	status, body := 0, ""
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/crawler")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status, body = resp.StatusCode, string(b)
		break
	}
	r := stop(10 * time.Second)
	if status != http.StatusOK || !strings.Contains(body, "CorpusBot") {
		t.Fatalf("/crawler: status %d; serve's stderr:\n%s", status, r.Stderr)
	}
	if n := strings.Count(r.Stderr, "database created"); n != 1 || !strings.Contains(r.Stderr, db) {
		t.Errorf("%d lines say the database was created (want 1, naming %s):\n%s", n, db, r.Stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("no database at %s: %v", db, err)
	}
}

// A misspelt CORPUSBOT_ variable is named in a warning on stderr, with the
// setting meant, and the command goes on.
func TestBinaryMisspeltVariableWarned(t *testing.T) {
	t.Parallel()
	env := binarytest.NewEnv(t).Set("CORPUSBOT_MIN_GAPP", "1s")
	r := env.Run(t, time.Minute, "run", "--once")
	if r.Code != 0 {
		t.Fatalf("run --once: exit %d\n%s", r.Code, r.Stderr)
	}
	const want = "warning: CORPUSBOT_MIN_GAPP is not a setting and is ignored (did you mean CORPUSBOT_MIN_GAP?)"
	if n := strings.Count(r.Stderr, want); n != 1 {
		t.Errorf("the warning appears %d times, want once:\n%s", n, r.Stderr)
	}
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}
