package simweb

import "net/http"

// Handler serves the simulated web's plain http from a server of the
// caller's choosing (cmd/simweb serves it on a loopback port): every host by
// its Host header, requests in proxy form ("GET http://a.example/feed
// HTTP/1.1", as a client sends them to an HTTP proxy) included, each one
// recorded like those reaching the Web's own test servers. So a separate
// process can use it as its HTTP_PROXY and the server side still audits
// every request. It neither resolves nor dials anything: there is no https
// here (no CONNECT), only what Host serves on http.
func (w *Web) Handler() http.Handler { return http.HandlerFunc(w.serve) }
