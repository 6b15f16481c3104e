package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// dashboard is the Grafana dashboard shipped over the metrics.
const dashboard = "../../docs/grafana-dashboard.json"

// promQuery asks Prometheus at addr to evaluate expr now, and returns the
// samples of its instant vector (their values as Prometheus wrote them).
func promQuery(ctx context.Context, addr, expr string) ([]string, error) {
	u := "http://" + addr + "/api/v1/query?query=" + url.QueryEscape(expr)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("query %q: %w", expr, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %q: %s", expr, body.Error)
	}
	var out []string
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		out = append(out, s)
	}
	return out, nil
}

// dashboardExprs reads every "expr" of the dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var dash any
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "expr" {
					out = append(out, s)
				} else {
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(dash)
	return out
}

// TestPrometheusScrapesTheDashboard runs a real Prometheus (Debian's
// prometheus package; skipped where it is not installed, CI installs it)
// scraping `run --metrics-addr` while the binary crawls a simulated web
// through its proxy. Once the round is over: the requests counted by
// outcome add up to the requests the simulated servers received, and
// every expression of the dashboard returns data.
func TestPrometheusScrapesTheDashboard(t *testing.T) {
	prometheus, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (Debian: apt-get install prometheus)")
	}
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	blog(web.Host("203.0.113.40"), 3)
	blog(web.Host("203.0.113.41"), 2)
	closed := web.Host("203.0.113.42")
	blog(closed, 1)
	closed.Robots("User-agent: *\nDisallow: /\n")
	flaky := web.Host("203.0.113.43")
	blog(flaky, 1)
	flaky.Handle("/", simweb.Unavailable(""))

	env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_RUN_INTERVAL", "1h")
	addSources(t, env, "203.0.113.40", "203.0.113.41", "203.0.113.42", "203.0.113.43")
	metricsAddr, promAddr := freeAddr(t), freeAddr(t)
	env.Start(t, "run", "--metrics-addr", metricsAddr)

	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: corpusbot
    static_configs:
      - targets: ['`+metricsAddr+`']
`), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := exec.Command(prometheus, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	var promLog strings.Builder
	prom.Stdout, prom.Stderr = &promLog, &promLog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		prom.Process.Kill()
		prom.Wait()
	})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Wait for the round to be over and scraped, and for the count of
	// requests Prometheus holds to be what the servers received.
	var counted, served string
	for {
		if ctx.Err() != nil {
			t.Fatalf("Prometheus never held the round's requests: %s counted, %s served\n%s", counted, served, promLog.String())
		}
		time.Sleep(time.Second)
		rounds, err := promQuery(ctx, promAddr, "corpusbot_rounds_total")
		if err != nil || len(rounds) != 1 || rounds[0] == "0" {
			continue
		}
		sum, err := promQuery(ctx, promAddr, "sum(corpusbot_requests_total)")
		if err != nil || len(sum) != 1 {
			continue
		}
		counted, served = sum[0], strconv.Itoa(len(web.Requests()))
		if counted == served {
			break
		}
	}
	t.Logf("%s requests counted by Prometheus, as the servers received", counted)
	// By status class too: what the outcomes are made of.
	byClass := map[string]int{}
	for _, r := range web.Requests() {
		byClass[strconv.Itoa(r.Status/100)+"xx"]++
	}
	for class, n := range byClass {
		got, err := promQuery(ctx, promAddr, `sum(corpusbot_requests_total{code_class="`+class+`"})`)
		if err != nil || len(got) != 1 || got[0] != strconv.Itoa(n) {
			t.Errorf("requests of class %s: Prometheus %v (%v), the servers %d", class, got, err, n)
		}
	}
	// A wait of a few scrapes after the last request, so that rate()
	// has two samples in its window whatever the expression.
	time.Sleep(3 * time.Second)
	for _, expr := range dashboardExprs(t) {
		q := strings.ReplaceAll(expr, "$__rate_interval", "1m")
		got, err := promQuery(ctx, promAddr, q)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if len(got) == 0 {
			t.Errorf("%s: no data", expr)
		}
	}
}
