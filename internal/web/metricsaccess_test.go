package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/clientip"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/web"
)

// metricsSite is the public site's handler as serve mounts it: /metrics
// and the pages behind MetricsOnlyFrom, with the default
// METRICS_ALLOWED_NETWORKS and the given TRUSTED_PROXIES.
func metricsSite(t *testing.T, trusted string) http.Handler {
	t.Helper()
	allowed, err := clientip.ParseNetworks(config.Defaults().MetricsAllowedNetworks)
	if err != nil {
		t.Fatal(err)
	}
	proxies, err := clientip.ParseTrusted(trusted)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("corpusbot_requests_total 7\n"))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("a page")) })
	return web.MetricsOnlyFrom(mux, allowed, clientip.Resolver{Trusted: proxies})
}

func TestMetricsOnlyFromAllowedNetworks(t *testing.T) {
	tests := []struct {
		name    string
		trusted string // TRUSTED_PROXIES
		remote  string
		path    string
		header  map[string]string
		want    int
	}{
		{name: "loopback v4", remote: "127.0.0.1:41234", want: 200},
		{name: "loopback v4 elsewhere in 127/8", remote: "127.3.2.1:41234", want: 200},
		{name: "loopback v6", remote: "[::1]:41234", want: 200},
		{name: "loopback v4 mapped", remote: "[::ffff:127.0.0.1]:41234", want: 200},
		{name: "public address", remote: "203.0.113.9:5555", want: 403},
		{name: "private network not listed", remote: "10.0.0.5:5555", want: 403},
		{name: "link-local v6", remote: "[fe80::1%eth0]:5555", want: 403},
		{name: "not an address", remote: "@", want: 403},
		{name: "any spelling of the path", remote: "203.0.113.9:5555", path: "//metrics", want: 403},
		{name: "escaped path", remote: "203.0.113.9:5555", path: "/%6detrics", want: 403},
		{name: "the pages stay public", remote: "203.0.113.9:5555", path: "/coverage", want: 200},
		{name: "metrics-ish paths are pages", remote: "203.0.113.9:5555", path: "/metrics.json", want: 200},

		// X-Forwarded-For grants nothing from a peer that is not a trusted proxy.
		{name: "spoofed XFF from an outside peer", remote: "203.0.113.9:5555",
			header: map[string]string{"X-Forwarded-For": "127.0.0.1"}, want: 403},
		{name: "spoofed XFF, a trusted proxy elsewhere", trusted: "10.0.0.0/8", remote: "203.0.113.9:5555",
			header: map[string]string{"X-Forwarded-For": "127.0.0.1"}, want: 403},
		// An untrusted reverse proxy on loopback forwards for somebody: who
		// it is is unknown, and the proxy's own loopback address grants nothing.
		{name: "forwarded by an untrusted local proxy", remote: "127.0.0.1:41234",
			header: map[string]string{"X-Forwarded-For": "203.0.113.9"}, want: 403},
		{name: "X-Real-IP from an untrusted local proxy", remote: "127.0.0.1:41234",
			header: map[string]string{"X-Real-IP": "203.0.113.9"}, want: 403},
		{name: "Forwarded from an untrusted local proxy", remote: "127.0.0.1:41234",
			header: map[string]string{"Forwarded": "for=203.0.113.9"}, want: 403},

		// Through a trusted proxy, X-Forwarded-For names the client.
		{name: "trusted proxy forwards a visitor", trusted: "10.0.0.2", remote: "10.0.0.2:80",
			header: map[string]string{"X-Forwarded-For": "203.0.113.9"}, want: 403},
		{name: "trusted proxy forwards the local scraper", trusted: "10.0.0.2", remote: "10.0.0.2:80",
			header: map[string]string{"X-Forwarded-For": "127.0.0.1"}, want: 200},
		{name: "a visitor's own XFF before the trusted proxy's", trusted: "10.0.0.2", remote: "10.0.0.2:80",
			header: map[string]string{"X-Forwarded-For": "127.0.0.1, 203.0.113.9"}, want: 403},
		{name: "trusted local proxy forwards a visitor", trusted: "127.0.0.1", remote: "127.0.0.1:41234",
			header: map[string]string{"X-Forwarded-For": "203.0.113.9"}, want: 403},
		{name: "trusted proxy says so without X-Forwarded-For", trusted: "127.0.0.1", remote: "127.0.0.1:41234",
			header: map[string]string{"Forwarded": "for=203.0.113.9"}, want: 403},
		{name: "the local scraper beside a trusted local proxy", trusted: "127.0.0.1", remote: "127.0.0.1:41234", want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/metrics"
			}
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.RemoteAddr = tt.remote
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			metricsSite(t, tt.trusted).ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Fatalf("%s from %s %v: %d %q, want %d", path, tt.remote, tt.header, rec.Code, rec.Body.String(), tt.want)
			}
			leaked := strings.Contains(rec.Body.String(), "corpusbot_requests_total")
			if tt.want == 403 && (leaked || !strings.Contains(rec.Body.String(), "METRICS_ALLOWED_NETWORKS")) {
				t.Errorf("refusal body %q", rec.Body.String())
			}
			if tt.want == 200 && path == "/metrics" && !leaked {
				t.Errorf("metrics body %q", rec.Body.String())
			}
		})
	}
}

// An empty METRICS_ALLOWED_NETWORKS serves /metrics to nobody, loopback
// included; a wider one to whom it names.
func TestMetricsAllowedNetworksSetting(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("m")) })
	for _, tt := range []struct {
		networks, remote string
		want             int
	}{
		{"", "127.0.0.1:1", 403},
		{"", "[::1]:1", 403},
		{"10.1.0.0/16", "10.1.2.3:1", 200},
		{"10.1.0.0/16", "10.2.0.1:1", 403},
		{"10.1.0.0/16", "127.0.0.1:1", 403},
		{"192.0.2.7, 2001:db8::/32", "[2001:db8::5]:1", 200},
		{"192.0.2.7, 2001:db8::/32", "192.0.2.7:1", 200},
		{"192.0.2.7, 2001:db8::/32", "192.0.2.8:1", 403},
	} {
		allowed, err := clientip.ParseNetworks(tt.networks)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = tt.remote
		rec := httptest.NewRecorder()
		web.MetricsOnlyFrom(metrics, allowed, clientip.Resolver{}).ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("METRICS_ALLOWED_NETWORKS=%q, from %s: %d, want %d", tt.networks, tt.remote, rec.Code, tt.want)
		}
	}
}
