package simweb

import (
	"net/http"
	"net/http/httptest"

	"corpus.blog/corpusbot/robots"
)

// Fallback serves every host name not configured with Host: fn(host)
// answers its requests, robots.txt included, and every name resolves
// (Resolver). It is how a population too large to keep in memory is
// served: generated on demand, per request (package farm). fn may be
// called for every request, concurrently; nil turns the fallback off
// (unknown hosts are then "no such host" again).
func (w *Web) Fallback(fn func(host string) http.Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fallback = fn
}

// fallbackFor is the fallback's handler for host, or nil.
func (w *Web) fallbackFor(host string) http.Handler {
	w.mu.Lock()
	fn := w.fallback
	w.mu.Unlock()
	if fn == nil {
		return nil
	}
	return fn(host)
}

// fallbackRules is what a fallback host's robots.txt, as it now answers,
// asks of agent (the same reading as Host.rulesFor); nil when no fallback
// serves host.
func (w *Web) fallbackRules(host, agent string) *robots.Rules {
	h := w.fallbackFor(host)
	if h == nil {
		return nil
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://"+host+"/robots.txt", nil))
	switch code := rec.Code; {
	case code >= 200 && code < 300:
		return robots.Parse(rec.Body.Bytes()).For(agent)
	case code >= 400 && code < 500 && code != 401 && code != 403 && code != 429:
		return robots.AllowAll()
	}
	return robots.DisallowAll()
}
