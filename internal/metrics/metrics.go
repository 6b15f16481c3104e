// Package metrics exposes the crawler's work as Prometheus metrics: the
// requests it sends and what came of them, the waits politeness costs, the
// store's write latency, the rounds, and, sampled from the store when
// scraped, the work that is due and the posts by state.
//
// A Metrics owns its registry (no global default registry: two crawlers in
// one test process must not share counters). Every method is a no-op on a
// nil *Metrics, so that code that runs with metrics off needs no checks.
//
// Label values become time series: they are the fetcher's purposes and
// outcomes (model.Purposes, model.Outcomes), the crawler's kinds of item
// and the store's operations, each a small fixed set started at zero, never
// a URL or a host.
package metrics

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/model"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric of the crawler's own.
const namespace = "corpusbot"

// The outcome label of corpusbot_requests_total and the reason label of
// corpusbot_requests_declined_total are the fetcher's own words
// (model.Outcome: fetched, unchanged, status, error, ..., disallowed,
// refused, ...): one vocabulary, from the fetch record to the dashboard.
// A record whose outcome is model.Outcome.Declined was no request sent and
// is counted in the second, by reason, never in the first.

// sentClasses are the code classes each outcome of a request sent is
// started at zero with, so that the first of each kind shows in rate():
// the classes an answer with that outcome usually has. Others (a body that
// failed to read after a 2xx: error, 2xx) are counted all the same, from
// their first.
var sentClasses = map[model.Outcome][]string{
	model.OutcomeFetched:   {"2xx"},
	model.OutcomeUnchanged: {"3xx"},
	model.OutcomeRedirect:  {"3xx"},
	model.OutcomeTooLarge:  {"2xx"},
	model.OutcomeWrongType: {"2xx"},
	model.OutcomeStatus:    {"4xx", "5xx"},
	model.OutcomeError:     {CodeClassNone},
}

// codeClasses are the code_class values of robots.txt reads, each started
// at zero.
var codeClasses = []string{"2xx", "3xx", "4xx", "5xx", CodeClassNone}

// CodeClassNone is the code_class of a request that got no HTTP answer (a
// timeout, a refused connection, a DNS failure).
const CodeClassNone = "none"

// defaultSampleTimeout bounds the store sample of a scrape that does not
// say its own timeout: a slow store must not hold scrapes open forever.
const defaultSampleTimeout = 10 * time.Second

// Sample is what the store says at scrape time.
type Sample struct {
	DueByKind    map[string]int64 // work due now, by kind (feed, sitemap, page, ...)
	PostsByState map[string]int64 // posts, by state
}

// SampleFunc reads a Sample from the store; ctx ends with the scrape.
type SampleFunc func(ctx context.Context) (Sample, error)

// Metrics is the crawler's set of metrics and the registry that holds them.
type Metrics struct {
	registry *prometheus.Registry

	requests         *prometheus.CounterVec
	declined         *prometheus.CounterVec
	responseBytes    *prometheus.CounterVec
	notModified      *prometheus.CounterVec
	requestDuration  *prometheus.HistogramVec
	robotsFetches    *prometheus.CounterVec
	retriesScheduled *prometheus.CounterVec
	politenessWait   prometheus.Counter
	sitesInFlight    prometheus.Gauge
	storeWrite       *prometheus.HistogramVec
	roundDuration    prometheus.Histogram
	rounds           prometheus.Counter
	sampleErrors     prometheus.Counter

	dueWorkDesc *prometheus.Desc
	postsDesc   *prometheus.Desc

	mu     sync.Mutex
	sample SampleFunc // nil: no store sample
}

// New makes a Metrics with its own registry, on which the Go runtime's and
// the process's collectors are registered too.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "requests_total",
			Help: "HTTP requests sent (one per hop of a redirect), by purpose, status code class (none: no answer) and the fetcher's outcome.",
		}, []string{"purpose", "code_class", "outcome"}),
		declined: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "requests_declined_total",
			Help: "Requests not sent, declined before any connection, by purpose and reason (disallowed, refused, opted-out, waiting).",
		}, []string{"purpose", "reason"}),
		responseBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "response_bytes_total",
			Help: "Response body bytes read, by purpose.",
		}, []string{"purpose"}),
		notModified: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "not_modified_total",
			Help: "304 Not Modified answers to conditional requests, by purpose.",
		}, []string{"purpose"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "request_duration_seconds",
			Help:    "Time from sending a request to having read its body, by purpose.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"purpose"}),
		robotsFetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "robots_fetches_total",
			Help: "robots.txt requests sent, whatever their answer, by status code class (none: no answer).",
		}, []string{"code_class"}),
		retriesScheduled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "retries_scheduled_total",
			Help: "Retries scheduled after a transient fault, by kind of item.",
		}, []string{"kind"}),
		politenessWait: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "politeness_wait_seconds_total",
			Help: "Seconds spent waiting out a site's gap between two requests, summed over sites.",
		}),
		sitesInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "sites_in_flight",
			Help: "Sites being worked on now.",
		}),
		storeWrite: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "store_write_seconds",
			Help:    "Time a store write took until committed, by operation.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"op"}),
		roundDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "round_duration_seconds",
			Help:    "Time one round of due work took.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400},
		}),
		rounds: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "rounds_total",
			Help: "Rounds of due work finished.",
		}),
		sampleErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "sample_errors_total",
			Help: "Scrapes whose store sample (due work, posts) failed and was left out.",
		}),
		dueWorkDesc: prometheus.NewDesc(namespace+"_due_work",
			"Work due now, by kind, as the store says at scrape time.", []string{"kind"}, nil),
		postsDesc: prometheus.NewDesc(namespace+"_posts",
			"Posts in the store, by state, at scrape time.", []string{"state"}, nil),
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.declined, m.responseBytes, m.notModified, m.requestDuration,
		m.robotsFetches, m.retriesScheduled, m.politenessWait, m.sitesInFlight,
		m.storeWrite, m.roundDuration, m.rounds, m.sampleErrors,
	)
	m.startAtZero()
	return m
}

// startAtZero creates every series of a known label set, so that each is
// scraped as 0 before its first event: rate() and increase() see the first
// fault of a kind only when the series existed before it.
func (m *Metrics) startAtZero() {
	for _, p := range model.Purposes() {
		purpose := string(p)
		for _, o := range model.Outcomes() {
			if o.Declined() {
				m.declined.WithLabelValues(purpose, string(o))
				continue
			}
			for _, class := range sentClasses[o] {
				m.requests.WithLabelValues(purpose, class, string(o))
			}
		}
		m.responseBytes.WithLabelValues(purpose)
		m.notModified.WithLabelValues(purpose)
		m.requestDuration.WithLabelValues(purpose)
	}
	for _, class := range codeClasses {
		m.robotsFetches.WithLabelValues(class)
	}
}

// KnownRetryKinds starts the retry counters of these kinds of item at
// zero (the crawler names its kinds: crawl.RetryKinds).
func (m *Metrics) KnownRetryKinds(kinds ...string) {
	if m == nil {
		return
	}
	for _, k := range kinds {
		m.retriesScheduled.WithLabelValues(k)
	}
}

// KnownStoreOps starts the store write histograms of these operations at
// zero (the store names its operations: store.WriteOps).
func (m *Metrics) KnownStoreOps(ops ...string) {
	if m == nil {
		return
	}
	for _, op := range ops {
		m.storeWrite.WithLabelValues(op)
	}
}

// CodeClasses lists the code_class values the crawler's answers fall in
// (a 1xx is never an answer it is given).
func CodeClasses() []string { return slices.Clone(codeClasses) }

// CodeClass is the code_class label of an HTTP status: "2xx" for 200 to
// 299 and so on, CodeClassNone for 0 (no answer) or anything not a status.
func CodeClass(status int) string {
	if status < 100 || status > 599 {
		return CodeClassNone
	}
	return strconv.Itoa(status/100) + "xx"
}

// ObserveFetch counts one record of the fetcher: a request sent (any
// answer, or none) in corpusbot_requests_total with its body bytes, its
// duration and, for a 304, corpusbot_not_modified_total, and a robots.txt
// request in corpusbot_robots_fetches_total whatever its status; a request
// declined before any connection in corpusbot_requests_declined_total
// alone. The time either waited for its site's lease is politeness wait.
func (m *Metrics) ObserveFetch(r model.RequestRecord) {
	if m == nil {
		return
	}
	purpose := string(r.Purpose)
	m.PolitenessWait(r.Waited)
	if r.Outcome.Declined() {
		m.declined.WithLabelValues(purpose, string(r.Outcome)).Inc()
		return
	}
	m.requests.WithLabelValues(purpose, CodeClass(r.Status), string(r.Outcome)).Inc()
	// Touched even with no bytes, so that a purpose with only empty
	// bodies shows 0 rather than nothing.
	m.responseBytes.WithLabelValues(purpose).Add(float64(max(r.Bytes, 0)))
	if r.Status == http.StatusNotModified {
		m.notModified.WithLabelValues(purpose).Inc()
	}
	m.requestDuration.WithLabelValues(purpose).Observe(r.Duration.Seconds())
	if r.Purpose == model.PurposeRobots {
		m.robotsFetches.WithLabelValues(CodeClass(r.Status)).Inc()
	}
}

// RetryScheduled counts a retry scheduled for an item of kind (page, feed,
// sitemap, robots, discovery).
func (m *Metrics) RetryScheduled(kind string) {
	if m == nil {
		return
	}
	m.retriesScheduled.WithLabelValues(kind).Inc()
}

// PolitenessWait adds d, a wait for a site's gap, to the total waited.
func (m *Metrics) PolitenessWait(d time.Duration) {
	if m == nil || d <= 0 {
		return
	}
	m.politenessWait.Add(d.Seconds())
}

// SiteStarted counts one more site in flight; SiteDone one fewer.
func (m *Metrics) SiteStarted() {
	if m == nil {
		return
	}
	m.sitesInFlight.Inc()
}

// SiteDone counts one fewer site in flight.
func (m *Metrics) SiteDone() {
	if m == nil {
		return
	}
	m.sitesInFlight.Dec()
}

// ObserveStoreWrite records that a store write op took d.
func (m *Metrics) ObserveStoreWrite(op string, d time.Duration) {
	if m == nil {
		return
	}
	m.storeWrite.WithLabelValues(op).Observe(d.Seconds())
}

// RoundDone records a finished round of due work that took d.
func (m *Metrics) RoundDone(d time.Duration) {
	if m == nil {
		return
	}
	m.roundDuration.Observe(d.Seconds())
	m.rounds.Inc()
}

// SampleWith makes every scrape ask fn for the store's due work and posts
// (corpusbot_due_work, corpusbot_posts); a later call replaces fn, nil
// stops the sample. A failing fn leaves both out of that scrape and counts
// in corpusbot_sample_errors_total; the rest of the scrape is served.
func (m *Metrics) SampleWith(fn SampleFunc) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.sample = fn
	m.mu.Unlock()
}

// Gatherer is the registry, without the store sample (nil on a nil
// *Metrics): what a test reads the crawler's own series from.
func (m *Metrics) Gatherer() prometheus.Gatherer {
	if m == nil {
		return nil
	}
	return m.registry
}

// Handler serves the metrics in the Prometheus exposition format. On a nil
// *Metrics it answers 404: metrics are off.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	opts := promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), scrapeTimeout(r))
		defer cancel()
		promhttp.HandlerFor(m.gatherer(ctx), opts).ServeHTTP(w, r)
	})
}

// scrapeTimeout is the time the store sample may take: a little under the
// timeout Prometheus says it gives the scrape, or the default.
func scrapeTimeout(r *http.Request) time.Duration {
	if s, err := strconv.ParseFloat(r.Header.Get("X-Prometheus-Scrape-Timeout-Seconds"), 64); err == nil && s > 0 {
		if d := time.Duration(s * 0.9 * float64(time.Second)); d < defaultSampleTimeout {
			return d
		}
	}
	return defaultSampleTimeout
}

// gatherer is what one scrape gathers: the registry, and the store sample
// taken under that scrape's ctx (so a scrape that is given up stops its
// queries). The sample lives in a registry of its own, made per scrape,
// because a registered collector's Collect is given no context.
func (m *Metrics) gatherer(ctx context.Context) prometheus.Gatherer {
	m.mu.Lock()
	fn := m.sample
	m.mu.Unlock()
	if fn == nil {
		return m.registry
	}
	perScrape := prometheus.NewRegistry()
	perScrape.MustRegister(&sampleCollector{m: m, ctx: ctx, fn: fn})
	return prometheus.Gatherers{perScrape, m.registry}
}

// sampleCollector turns one Sample into the due-work and posts gauges.
type sampleCollector struct {
	m   *Metrics
	ctx context.Context
	fn  SampleFunc
}

func (c *sampleCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.m.dueWorkDesc
	ch <- c.m.postsDesc
}

func (c *sampleCollector) Collect(ch chan<- prometheus.Metric) {
	s, err := c.fn(c.ctx)
	if err != nil {
		c.m.sampleErrors.Inc()
		return
	}
	for kind, n := range s.DueByKind {
		ch <- prometheus.MustNewConstMetric(c.m.dueWorkDesc, prometheus.GaugeValue, float64(n), kind)
	}
	for state, n := range s.PostsByState {
		ch <- prometheus.MustNewConstMetric(c.m.postsDesc, prometheus.GaugeValue, float64(n), state)
	}
}
