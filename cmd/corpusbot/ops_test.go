package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/metrics"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestMetricsMatchTheServer crawls a simulated web with metrics on, then
// scrapes /metrics: the requests counted (all, 304s, by purpose) are the
// ones the servers recorded.
func TestMetricsMatchTheServer(t *testing.T) {
	clock := simweb.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	web := simweb.New(simweb.WithClock(clock.Now))
	defer web.Close()
	hosts := serveNonpostBlogs(t, web)

	s := config.Defaults()
	s.DB = filepath.Join(t.TempDir(), "m.db")
	m := metrics.New()
	c := newSimCrawl(t, web, clock, s, func(o *app.Options) { o.Metrics = m })
	for _, h := range hosts {
		c.add("http://" + h + "/")
	}
	for range 2 { // the second round asks again: 304s
		c.once()
		clock.Advance(48 * time.Hour)
	}
	c.finish()
	st := c.st

	sent, notModified := 0, 0
	for _, r := range web.Requests() {
		sent++
		if r.Status == http.StatusNotModified {
			notModified++
		}
	}
	if sent == 0 || notModified == 0 {
		t.Fatalf("the crawl made %d requests, %d answered 304: nothing to compare", sent, notModified)
	}

	srv := httptest.NewServer(opsHandler(m, st, nil))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answered, declined, got304 := 0.0, 0.0, 0.0
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v, _ := strconv.ParseFloat(value, 64)
		switch {
		case strings.HasPrefix(name, "corpusbot_requests_total{"):
			// Declined before sending (no connection made), or no answer.
			if strings.Contains(name, `code_class="none"`) {
				declined += v
			} else {
				answered += v
			}
		case strings.HasPrefix(name, "corpusbot_not_modified_total{"):
			got304 += v
		}
	}
	if int(answered) != sent || int(got304) != notModified {
		t.Errorf("metrics: %v requests answered, %v 304s; the servers recorded %d and %d (declined before sending: %v)",
			answered, got304, sent, notModified, declined)
	}
	if !strings.Contains(scrape(t, srv.URL+"/metrics"), `corpusbot_posts{`) {
		t.Error("no posts-by-state sample in the scrape")
	}
}

func scrape(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// TestHealthz: 200 while the database answers, 503 once it is gone.
func TestHealthz(t *testing.T) {
	s := config.Defaults()
	s.DB = filepath.Join(t.TempDir(), "h.db")
	st, err := app.OpenStore(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(opsHandler(nil, st, nil))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("healthy: %d", res.StatusCode)
	}
	st.Close()
	res, err = http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "unavailable") {
		t.Fatalf("database closed: %d %s", res.StatusCode, body)
	}
}

// TestRunOnceNothingReached: a run in which no request is answered (here
// the private-address guard refuses the only source's address; no packet
// leaves the machine) exits 1 and says why; the round's summary line says
// what was tried.
func TestRunOnceNothingReached(t *testing.T) {
	env := map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "r.db")}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "http://127.0.0.1:9/"); code != 0 {
		t.Fatalf("sources add: %s", errOut)
	}
	_, errOut, code := runCLI(t, nil, env, "run", "--once")
	if code != exitFailure || !strings.Contains(errOut, "no source could be reached") {
		t.Fatalf("run --once: exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "round done") || !strings.Contains(errOut, "error_reasons") {
		t.Errorf("no round summary with the reasons: %q", errOut)
	}
}

// TestRunLogsJSON: with LOG_FORMAT=json every log line of a run is one JSON
// object with level, msg and time; per-request lines (DEBUG) appear at
// LOG_LEVEL=debug and not at the default level.
func TestRunLogsJSON(t *testing.T) {
	for _, level := range []string{"debug", "info"} {
		env := map[string]string{"CORPUSBOT_DB": filepath.Join(t.TempDir(), "j.db"),
			"CORPUSBOT_LOG_FORMAT": "json", "CORPUSBOT_LOG_LEVEL": level}
		if _, errOut, code := runCLI(t, nil, env, "sources", "add", "http://127.0.0.1:9/"); code != 0 {
			t.Fatalf("sources add: %s", errOut)
		}
		_, errOut, _ := runCLI(t, nil, env, "run", "--once")
		debug := 0
		for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
			if strings.HasPrefix(line, "corpusbot") {
				continue // the command's own one-line error, not a log line
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("level %s: not JSON: %q", level, line)
			}
			for _, k := range []string{"level", "msg", "time"} {
				if _, ok := rec[k]; !ok {
					t.Errorf("level %s: no %q in %q", level, k, line)
				}
			}
			if rec["level"] == "DEBUG" {
				debug++
			}
		}
		if (level == "debug") != (debug > 0) {
			t.Errorf("LOG_LEVEL=%s: %d DEBUG lines", level, debug)
		}
	}
}
