package web

import (
	"net/http"
	"net/netip"
	"path"

	"corpus.blog/corpusbot/internal/clientip"
)

// MetricsOnlyFrom serves next, but its /metrics only to clients in allowed
// (METRICS_ALLOWED_NETWORKS): the public site's port is open to anyone,
// and what the crawler counts is for the operator's scraper. Others get
// 403. The client is the one proxies gives (TRUSTED_PROXIES), so that
// X-Forwarded-For can name an allowed client only through a trusted
// proxy; a request forwarded by a proxy not trusted (whose own address,
// often loopback, would stand for every visitor) is refused too
// (clientip.Resolver.Identified). Every other path passes through unchanged.
func MetricsOnlyFrom(next http.Handler, allowed []netip.Prefix, proxies clientip.Resolver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Any spelling of the path that a mux would clean into /metrics
		// (//metrics, /./metrics, /%6detrics) is judged as /metrics.
		if path.Clean("/"+r.URL.Path) == "/metrics" && !metricsAllowed(r, allowed, proxies) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte("403 forbidden: /metrics is served only to the networks in METRICS_ALLOWED_NETWORKS\n"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func metricsAllowed(r *http.Request, allowed []netip.Prefix, proxies clientip.Resolver) bool {
	if !proxies.Identified(r) {
		return false
	}
	a := proxies.ClientAddr(r)
	if !a.IsValid() {
		return false // not an IP peer (a Unix socket): nobody we can place
	}
	for _, p := range allowed {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
