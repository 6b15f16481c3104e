package metrics

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corpusmodel "corpus.blog/corpusbot/internal/model"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape fetches the exposition text from h and parses it.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("scrape: status %d", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	return families
}

// value finds the sample of family name whose labels are exactly labels
// (name=value pairs), and returns its counter, gauge or histogram count.
func value(t *testing.T, families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	f, ok := families[name]
	if !ok {
		t.Fatalf("no metric %s in the scrape", name)
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		if !equalMaps(got, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Untyped != nil:
			return m.GetUntyped().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("no sample of %s with labels %v", name, want)
	return 0
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func histogram(t *testing.T, families map[string]*dto.MetricFamily, name string, labels ...string) *dto.Histogram {
	t.Helper()
	f := families[name]
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("%s: not a histogram in the scrape", name)
	}
	value(t, families, name, labels...) // fails if absent
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		want := map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			want[labels[i]] = labels[i+1]
		}
		if equalMaps(got, want) {
			return m.GetHistogram()
		}
	}
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestObservationsScrapedExactly(t *testing.T) {
	m := New()
	for _, r := range []corpusmodel.RequestRecord{
		{Purpose: corpusmodel.PurposeFeed, Status: 200, Outcome: corpusmodel.OutcomeFetched, Bytes: 1000, Duration: 200 * time.Millisecond},
		{Purpose: corpusmodel.PurposeFeed, Status: 304, Outcome: corpusmodel.OutcomeUnchanged, Duration: 50 * time.Millisecond},
		{Purpose: corpusmodel.PurposeFeed, Status: 304, Outcome: corpusmodel.OutcomeUnchanged, Duration: 70 * time.Millisecond},
		{Purpose: corpusmodel.PurposePage, Status: 200, Outcome: corpusmodel.OutcomeFetched, Bytes: 5000, Duration: time.Second},
		{Purpose: corpusmodel.PurposePage, Status: 503, Outcome: corpusmodel.OutcomeStatus, Bytes: 120, Duration: 3 * time.Second},
		{Purpose: corpusmodel.PurposePage, Outcome: corpusmodel.OutcomeError, Duration: 10 * time.Second},
		{Purpose: corpusmodel.PurposePage, Outcome: corpusmodel.OutcomeDisallowed},
		{Purpose: corpusmodel.PurposePage, Outcome: corpusmodel.OutcomeRefused, Waited: time.Second},
		{Purpose: corpusmodel.PurposeRobots, Status: 403, Outcome: corpusmodel.OutcomeStatus, Bytes: 30, Duration: 20 * time.Millisecond},
		{Purpose: corpusmodel.PurposeRobots, Status: 404, Outcome: corpusmodel.OutcomeStatus},
		{Purpose: corpusmodel.PurposeRobots, Status: 503, Outcome: corpusmodel.OutcomeStatus},
		{Purpose: corpusmodel.PurposeRobots, Outcome: corpusmodel.OutcomeError},
	} {
		m.ObserveFetch(r)
	}
	m.RetryScheduled("page")
	m.RetryScheduled("page")
	m.RetryScheduled("feed")
	m.PolitenessWait(1500 * time.Millisecond)
	m.PolitenessWait(2500 * time.Millisecond)
	m.PolitenessWait(-time.Second) // ignored: a wait is never negative
	m.SiteStarted()
	m.SiteStarted()
	m.SiteStarted()
	m.SiteDone()
	m.ObserveStoreWrite("record_fetch", 2*time.Millisecond)
	m.ObserveStoreWrite("record_fetch", 4*time.Millisecond)
	m.ObserveStoreWrite("add_post", time.Millisecond)
	m.RoundDone(90 * time.Second)
	m.RoundDone(30 * time.Second)

	f := scrape(t, m.Handler())
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"corpusbot_requests_total", []string{"purpose", "feed", "code_class", "2xx", "outcome", "fetched"}, 1},
		{"corpusbot_requests_total", []string{"purpose", "feed", "code_class", "3xx", "outcome", "unchanged"}, 2},
		{"corpusbot_requests_total", []string{"purpose", "page", "code_class", "2xx", "outcome", "fetched"}, 1},
		{"corpusbot_requests_total", []string{"purpose", "page", "code_class", "5xx", "outcome", "status"}, 1},
		{"corpusbot_requests_total", []string{"purpose", "page", "code_class", "none", "outcome", "error"}, 1},
		{"corpusbot_requests_total", []string{"purpose", "robots", "code_class", "4xx", "outcome", "status"}, 2},
		{"corpusbot_requests_total", []string{"purpose", "robots", "code_class", "5xx", "outcome", "status"}, 1},
		{"corpusbot_requests_total", []string{"purpose", "page", "code_class", "4xx", "outcome", "status"}, 0},
		{"corpusbot_requests_declined_total", []string{"purpose", "page", "reason", "disallowed"}, 1},
		{"corpusbot_requests_declined_total", []string{"purpose", "page", "reason", "refused"}, 1},
		{"corpusbot_requests_declined_total", []string{"purpose", "feed", "reason", "waiting"}, 0},
		{"corpusbot_response_bytes_total", []string{"purpose", "feed"}, 1000},
		{"corpusbot_response_bytes_total", []string{"purpose", "page"}, 5120},
		{"corpusbot_response_bytes_total", []string{"purpose", "robots"}, 30},
		{"corpusbot_not_modified_total", []string{"purpose", "feed"}, 2},
		{"corpusbot_request_duration_seconds", []string{"purpose", "feed"}, 3},
		{"corpusbot_request_duration_seconds", []string{"purpose", "page"}, 3},
		{"corpusbot_robots_fetches_total", []string{"code_class", "4xx"}, 2},
		{"corpusbot_robots_fetches_total", []string{"code_class", "5xx"}, 1},
		{"corpusbot_robots_fetches_total", []string{"code_class", "none"}, 1},
		{"corpusbot_robots_fetches_total", []string{"code_class", "2xx"}, 0},
		{"corpusbot_not_modified_total", []string{"purpose", "page"}, 0},
		{"corpusbot_retries_scheduled_total", []string{"kind", "page"}, 2},
		{"corpusbot_retries_scheduled_total", []string{"kind", "feed"}, 1},
		{"corpusbot_politeness_wait_seconds_total", nil, 5},
		{"corpusbot_sites_in_flight", nil, 2},
		{"corpusbot_store_write_seconds", []string{"op", "record_fetch"}, 2},
		{"corpusbot_store_write_seconds", []string{"op", "add_post"}, 1},
		{"corpusbot_round_duration_seconds", nil, 2},
		{"corpusbot_rounds_total", nil, 2},
		{"corpusbot_sample_errors_total", nil, 0},
	}
	for _, c := range checks {
		if got := value(t, f, c.name, c.labels...); !near(got, c.want) {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, s := range f["corpusbot_not_modified_total"].GetMetric() {
		if s.GetLabel()[0].GetValue() != "feed" && s.GetCounter().GetValue() != 0 {
			t.Errorf("not_modified counted for %v, which had no 304", s.GetLabel())
		}
	}
	if h := histogram(t, f, "corpusbot_request_duration_seconds", "purpose", "page"); !near(h.GetSampleSum(), 14) {
		t.Errorf("page request seconds summed to %v, want 14", h.GetSampleSum())
	}
	if h := histogram(t, f, "corpusbot_round_duration_seconds"); !near(h.GetSampleSum(), 120) {
		t.Errorf("round seconds summed to %v, want 120", h.GetSampleSum())
	}
	if h := histogram(t, f, "corpusbot_store_write_seconds", "op", "record_fetch"); !near(h.GetSampleSum(), 0.006) {
		t.Errorf("record_fetch seconds summed to %v, want 0.006", h.GetSampleSum())
	}
	// The Go and process collectors are on the registry too.
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if _, ok := f[name]; !ok {
			t.Errorf("%s missing from the scrape", name)
		}
	}
	if _, ok := f["corpusbot_due_work"]; ok {
		t.Error("corpusbot_due_work exposed with no sample function")
	}
}

// TestOneVocabulary: every outcome of the fetcher is counted under its own
// word in exactly one series, requests sent or requests declined, and the
// series of each is there at zero before its first record.
func TestOneVocabulary(t *testing.T) {
	m := New()
	for _, o := range corpusmodel.Outcomes() {
		sent := testutil.ToFloat64(m.requests.WithLabelValues("page", "none", string(o)))
		declined := testutil.ToFloat64(m.declined.WithLabelValues("page", string(o)))
		m.ObserveFetch(corpusmodel.RequestRecord{Purpose: corpusmodel.PurposePage, Outcome: o})
		dSent := testutil.ToFloat64(m.requests.WithLabelValues("page", "none", string(o))) - sent
		dDeclined := testutil.ToFloat64(m.declined.WithLabelValues("page", string(o))) - declined
		if dSent+dDeclined != 1 || (dSent == 1) == o.Declined() {
			t.Errorf("outcome %q: +%v sent, +%v declined; declined before sending: %v", o, dSent, dDeclined, o.Declined())
		}
		if _, ok := sentClasses[o]; ok == o.Declined() {
			t.Errorf("outcome %q: started at zero as sent %v, declined %v", o, ok, o.Declined())
		}
	}
	// Started at zero: one series per purpose and sent outcome's class,
	// one per purpose and reason declined.
	fresh := New()
	sentSeries, declinedSeries := 0, 0
	for _, o := range corpusmodel.Outcomes() {
		if o.Declined() {
			declinedSeries++
		}
		sentSeries += len(sentClasses[o])
	}
	n := len(corpusmodel.Purposes())
	if got := testutil.CollectAndCount(fresh.requests); got != n*sentSeries {
		t.Errorf("%d requests_total series at start, want %d", got, n*sentSeries)
	}
	if got := testutil.CollectAndCount(fresh.declined); got != n*declinedSeries {
		t.Errorf("%d requests_declined_total series at start, want %d", got, n*declinedSeries)
	}
	if got := testutil.CollectAndCount(fresh.robotsFetches); got != len(codeClasses) {
		t.Errorf("%d robots_fetches_total series at start, want %d", got, len(codeClasses))
	}
	fresh.KnownRetryKinds("page", "feed")
	fresh.KnownStoreOps("tx")
	if got := testutil.CollectAndCount(fresh.retriesScheduled); got != 2 {
		t.Errorf("%d retries_scheduled_total series after KnownRetryKinds, want 2", got)
	}
	if got := testutil.CollectAndCount(fresh.storeWrite); got != 1 {
		t.Errorf("%d store_write_seconds series after KnownStoreOps, want 1", got)
	}
}

func TestCodeClass(t *testing.T) {
	for status, want := range map[int]string{
		0: "none", -1: "none", 99: "none", 600: "none",
		100: "1xx", 200: "2xx", 204: "2xx", 299: "2xx", 301: "3xx", 304: "3xx",
		404: "4xx", 429: "4xx", 500: "5xx", 599: "5xx",
	} {
		if got := CodeClass(status); got != want {
			t.Errorf("CodeClass(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestSampleAtScrapeTime(t *testing.T) {
	m := New()
	var calls atomic.Int64
	m.SampleWith(func(ctx context.Context) (Sample, error) {
		n := calls.Add(1)
		if ctx.Err() != nil {
			return Sample{}, ctx.Err()
		}
		return Sample{
			DueByKind:    map[string]int64{"feed": 10 * n, "page": 3},
			PostsByState: map[string]int64{"fetched": 100, "pending": 7},
		}, nil
	})
	h := m.Handler()
	f := scrape(t, h)
	if got := value(t, f, "corpusbot_due_work", "kind", "feed"); got != 10 {
		t.Errorf("due feed = %v, want 10", got)
	}
	if got := value(t, f, "corpusbot_due_work", "kind", "page"); got != 3 {
		t.Errorf("due page = %v, want 3", got)
	}
	if got := value(t, f, "corpusbot_posts", "state", "pending"); got != 7 {
		t.Errorf("pending posts = %v, want 7", got)
	}
	if f["corpusbot_posts"].GetType() != dto.MetricType_GAUGE {
		t.Errorf("corpusbot_posts is a %v, want a gauge", f["corpusbot_posts"].GetType())
	}
	// A second scrape samples again rather than reusing the first.
	f = scrape(t, h)
	if got := value(t, f, "corpusbot_due_work", "kind", "feed"); got != 20 {
		t.Errorf("due feed on the second scrape = %v, want 20", got)
	}
	if calls.Load() != 2 {
		t.Errorf("sample function called %d times for 2 scrapes", calls.Load())
	}
}

func TestFailingSampleKeepsTheScrape(t *testing.T) {
	m := New()
	m.SampleWith(func(context.Context) (Sample, error) {
		return Sample{DueByKind: map[string]int64{"feed": 1}}, errors.New("database is locked")
	})
	m.RoundDone(time.Second)
	f := scrape(t, m.Handler())
	if _, ok := f["corpusbot_due_work"]; ok {
		t.Error("a failed sample was exposed")
	}
	if got := value(t, f, "corpusbot_rounds_total"); got != 1 {
		t.Errorf("rounds = %v, want 1: the rest of the scrape must be served", got)
	}
	if got := value(t, f, "corpusbot_sample_errors_total"); got != 1 {
		t.Errorf("sample errors in the failing scrape itself = %v, want 1", got)
	}
	m.SampleWith(nil)
	f = scrape(t, m.Handler())
	if got := value(t, f, "corpusbot_sample_errors_total"); got != 1 {
		t.Errorf("sample errors after the sample was removed = %v, want still 1", got)
	}
}

func TestSampleContextEndsWithScrape(t *testing.T) {
	m := New()
	var deadline atomic.Value
	m.SampleWith(func(ctx context.Context) (Sample, error) {
		d, ok := ctx.Deadline()
		if !ok {
			return Sample{}, errors.New("no deadline")
		}
		deadline.Store(time.Until(d))
		return Sample{}, nil
	})
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "2")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, req)
	left, _ := deadline.Load().(time.Duration)
	if left <= 0 || left > 1800*time.Millisecond {
		t.Errorf("sample given %v for a 2s scrape, want under 1.8s", left)
	}
}

func TestNilMetricsIsANoOp(t *testing.T) {
	var m *Metrics
	m.ObserveFetch(corpusmodel.RequestRecord{Purpose: corpusmodel.PurposePage, Status: 200, Outcome: corpusmodel.OutcomeFetched})
	m.RetryScheduled("page")
	m.PolitenessWait(time.Second)
	m.KnownRetryKinds("page")
	m.KnownStoreOps("tx")
	m.SiteStarted()
	m.SiteDone()
	m.ObserveStoreWrite("op", time.Second)
	m.RoundDone(time.Second)
	m.SampleWith(func(context.Context) (Sample, error) { return Sample{}, nil })
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("nil Metrics' handler answered %d, want 404", rec.Code)
	}
}

// TestLint runs promtool's checks (names, units, help, suffixes) over
// everything a scrape exposes, every metric touched so that it is there.
func TestLint(t *testing.T) {
	m := exercised()
	problems, err := testutil.GatherAndLint(m.gatherer(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// exercised is a Metrics with every metric observed once and a sample, so
// that a gather lists every name the package can expose.
func exercised() *Metrics {
	m := New()
	m.ObserveFetch(corpusmodel.RequestRecord{Purpose: corpusmodel.PurposePage, Status: 304, Outcome: corpusmodel.OutcomeUnchanged, Bytes: 1, Duration: time.Second})
	m.ObserveFetch(corpusmodel.RequestRecord{Purpose: corpusmodel.PurposeRobots, Status: 200, Outcome: corpusmodel.OutcomeFetched})
	m.ObserveFetch(corpusmodel.RequestRecord{Purpose: corpusmodel.PurposePage, Outcome: corpusmodel.OutcomeDisallowed})
	m.RetryScheduled("page")
	m.PolitenessWait(time.Second)
	m.SiteStarted()
	m.ObserveStoreWrite("op", time.Second)
	m.RoundDone(time.Second)
	m.SampleWith(func(context.Context) (Sample, error) {
		return Sample{DueByKind: map[string]int64{"feed": 1}, PostsByState: map[string]int64{"fetched": 1}}, nil
	})
	return m
}

// exposedNames lists the corpusbot_ metric families a scrape can show.
func exposedNames(t *testing.T) map[string]dto.MetricType {
	t.Helper()
	families, err := exercised().gatherer(context.Background()).Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]dto.MetricType{}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), namespace+"_") {
			out[f.GetName()] = f.GetType()
		}
	}
	return out
}

func TestExposedNames(t *testing.T) {
	var got []string
	for name := range exposedNames(t) {
		got = append(got, name)
	}
	sort.Strings(got)
	want := []string{
		"corpusbot_due_work", "corpusbot_not_modified_total", "corpusbot_politeness_wait_seconds_total",
		"corpusbot_posts", "corpusbot_request_duration_seconds", "corpusbot_requests_declined_total", "corpusbot_requests_total",
		"corpusbot_response_bytes_total", "corpusbot_retries_scheduled_total", "corpusbot_robots_fetches_total",
		"corpusbot_round_duration_seconds", "corpusbot_rounds_total", "corpusbot_sample_errors_total",
		"corpusbot_sites_in_flight", "corpusbot_store_write_seconds",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("exposed names:\n got %v\nwant %v", got, want)
	}
}
