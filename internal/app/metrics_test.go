package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/metrics"
	corpusmodel "corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

var metricsStart = time.Date(2026, 4, 6, 6, 0, 0, 0, time.UTC)

// metricsWorld is a small simulated web in which each thing the metrics
// count happens at least once: blogs read in full and then unchanged (a
// second round, conditional requests answered 304), a site whose
// robots.txt forbids everything (requests declined), a site answering 503
// (a retry scheduled), a site with no robots.txt (a 404 robots.txt read).
func metricsWorld(t *testing.T, clock *simweb.Clock) (*simweb.Web, []string) {
	t.Helper()
	web := simweb.New(simweb.WithClock(clock.Now))
	t.Cleanup(web.Close)
	blog := func(name string) *simweb.Host {
		h := web.Host(name)
		h.Put("/", "text/html; charset=utf-8", `<!doctype html><html><head><title>`+name+`</title>`+
			`<link rel="alternate" type="application/rss+xml" href="/feed"></head><body><p>A blog.</p></body></html>`)
		var items strings.Builder
		for i := range 3 {
			path := fmt.Sprintf("/2026/03/%02d/post-%d/", i+1, i+1)
			fmt.Fprintf(&items, "<item><title>Post %d</title><link>http://%s%s</link><guid>http://%s%s</guid>"+
				"<pubDate>%s</pubDate><description>Post %d.</description></item>",
				i+1, name, path, name, path, metricsStart.AddDate(0, 0, -10+i).Format(time.RFC1123Z), i+1)
			h.Put(path, "text/html; charset=utf-8", fmt.Sprintf(`<!doctype html><html><head><title>Post %d</title></head>`+
				`<body><article><h1>Post %d</h1><p>%s</p></article></body></html>`, i+1, i+1, strings.Repeat("Words of a post. ", 80)))
		}
		h.Put("/feed", "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>`+name+`</title>`+
			`<link>http://`+name+`/</link>`+items.String()+`</channel></rss>`)
		return h
	}
	blog("good.example").Robots("User-agent: *\nAllow: /\n")
	blog("norobots.example").RobotsStatus(http.StatusNotFound)
	blog("closed.example").Robots("User-agent: *\nDisallow: /\n")
	flaky := blog("flaky.example")
	flaky.Robots("User-agent: *\nAllow: /\n")
	flaky.Handle("/", simweb.Unavailable(""))
	return web, []string{"good.example", "norobots.example", "closed.example", "flaky.example"}
}

// family finds a family of a gather by name.
func family(families []*dto.MetricFamily, name string) *dto.MetricFamily {
	for _, f := range families {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

// total sums a family's samples (counters, gauges) or observations
// (histograms) over the series whose labels include the pairs given.
func total(f *dto.MetricFamily, labels ...string) float64 {
	var sum float64
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, lp := range m.GetLabel() {
			have[lp.GetName()] = lp.GetValue()
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			match = match && have[labels[i]] == labels[i+1]
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}

// TestEverySeriesMoves crawls the simulated web twice, a day apart, with
// metrics on, and checks that every series the metrics package defines was
// recorded by the code that does the thing (sites_in_flight seen above 0
// during the crawl and back at 0 after it), and that the requests counted,
// by status class and in all, are exactly those the servers received, the
// robots.txt reads among them whatever their status.
func TestEverySeriesMoves(t *testing.T) {
	clock := simweb.NewClock(metricsStart)
	web, hosts := metricsWorld(t, clock)
	s := config.Defaults()
	s.DB = filepath.Join(t.TempDir(), "c.db")
	ctx := context.Background()
	st, err := app.OpenStore(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := metrics.New()
	var mu sync.Mutex
	maxInFlight := 0.0
	wired, err := app.NewCrawl(st, app.Options{Settings: s, Clock: clock, SlowAfter: 1000 * time.Hour, Metrics: m,
		Observe: func(corpusmodel.RequestRecord) {
			// The gauge as a scrape during the crawl would see it.
			families, err := m.Gatherer().Gather()
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			maxInFlight = max(maxInFlight, total(family(families, "corpusbot_sites_in_flight")))
			mu.Unlock()
		},
		Network: app.Network{Resolver: web.Resolver(), Dial: web.Dial, Proxy: fetch.NoProxy, TLS: web.ClientTLS()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if _, _, err := st.AddSource(ctx, "http://"+h+"/", clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := wired.Crawler.Once(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(36 * time.Hour) // every feed due again
	}
	if err := wired.Close(); err != nil {
		t.Fatal(err)
	}

	// A scrape as Prometheus makes it, store sample included.
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	// Prometheus's own linter, where installed (CI installs it), over
	// the series as a real crawl labels them.
	if promtool, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.CommandContext(ctx, promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
	var families []*dto.MetricFamily
	for _, f := range parsed {
		families = append(families, f)
	}

	// Every series of the package's, by the names a scrape lists.
	moved := map[string]bool{}
	for _, f := range families {
		name := f.GetName()
		if !strings.HasPrefix(name, "corpusbot_") {
			continue
		}
		switch name {
		case "corpusbot_sites_in_flight":
			// A gauge back at 0 once the crawl is over: seen during it.
			mu.Lock()
			moved[name] = maxInFlight > 0
			mu.Unlock()
			if v := total(f); v != 0 {
				t.Errorf("sites_in_flight = %v after the crawl, want 0: a site started is never done", v)
			}
		case "corpusbot_sample_errors_total":
			// Moves only when the store fails the sample: a healthy
			// crawl has none (metrics' own tests make it move).
			moved[name] = true
			if v := total(f); v != 0 {
				t.Errorf("sample_errors_total = %v", v)
			}
		default:
			moved[name] = total(f) > 0
		}
	}
	for _, name := range []string{
		"corpusbot_requests_total", "corpusbot_requests_declined_total", "corpusbot_response_bytes_total",
		"corpusbot_not_modified_total", "corpusbot_request_duration_seconds", "corpusbot_robots_fetches_total",
		"corpusbot_retries_scheduled_total", "corpusbot_politeness_wait_seconds_total", "corpusbot_sites_in_flight",
		"corpusbot_store_write_seconds", "corpusbot_round_duration_seconds", "corpusbot_rounds_total",
		"corpusbot_sample_errors_total", "corpusbot_due_work", "corpusbot_posts",
	} {
		if _, ok := moved[name]; !ok {
			t.Errorf("%s: not in the scrape", name)
		}
	}
	for name, ok := range moved {
		if !ok {
			t.Errorf("%s never moved", name)
		}
	}
	if got := len(moved); got != 15 {
		t.Errorf("%d corpusbot_ families scraped, want the 15 this test knows: a new one needs a check here", got)
	}
	if got := total(family(families, "corpusbot_rounds_total")); got != 2 {
		t.Errorf("rounds_total = %v, want 2", got)
	}

	// The requests counted are the requests the servers received.
	served := web.Requests()
	requests := family(families, "corpusbot_requests_total")
	robots := family(families, "corpusbot_robots_fetches_total")
	if got := total(requests); got != float64(len(served)) {
		t.Errorf("requests_total sums to %v; the servers received %d", got, len(served))
	}
	byClass, robotsByClass := map[string]int{}, map[string]int{}
	for _, r := range served {
		class := metrics.CodeClass(r.Status)
		byClass[class]++
		if strings.HasPrefix(r.URI, "/robots.txt") {
			robotsByClass[class]++
		}
	}
	for _, class := range metrics.CodeClasses() {
		if got := total(requests, "code_class", class); got != float64(byClass[class]) {
			t.Errorf("requests_total{code_class=%q} = %v; the servers answered %d", class, got, byClass[class])
		}
		if got := total(robots, "code_class", class); got != float64(robotsByClass[class]) {
			t.Errorf("robots_fetches_total{code_class=%q} = %v; the servers answered %d robots.txt requests so", class, got, robotsByClass[class])
		}
	}
	t.Logf("%d requests served, by class %v; robots.txt by class %v", len(served), byClass, robotsByClass)
	if robotsByClass["4xx"] == 0 || byClass["5xx"] == 0 || byClass["3xx"] == 0 {
		t.Errorf("the world did not give the answers it is for: %v", byClass)
	}
	// Declined requests reached no server: closed.example saw only its
	// robots.txt.
	for _, r := range web.RequestsTo("closed.example") {
		if !strings.HasPrefix(r.URI, "/robots.txt") {
			t.Errorf("closed.example was sent %s", r.URI)
		}
	}
	if got := total(family(families, "corpusbot_requests_declined_total"), "reason", string(corpusmodel.OutcomeDisallowed)); got == 0 {
		t.Error("no request declined as disallowed")
	}
}
