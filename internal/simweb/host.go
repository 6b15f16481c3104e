package simweb

import (
	"net/http"
	"sync"
)

// Host is one simulated host name. Its methods are safe to call while
// requests are served.
type Host struct {
	w            *Web
	name         string
	mu           sync.Mutex
	robots       *Resource // nil: robotsStatus, or 404
	robotsStatus int
	routes       map[string]http.Handler // by path, or by path?query when one is given
	override     http.Handler            // answers every request, robots.txt included
	robotsFault  http.Handler            // answers the next robotsFaults requests for robots.txt
	robotsFaults int
}

func newHost(w *Web, name string) *Host {
	return &Host{w: w, name: name, routes: make(map[string]http.Handler)}
}

// Name is the host name.
func (h *Host) Name() string { return h.name }

// URL is the absolute http URL of path on this host.
func (h *Host) URL(path string) string { return "http://" + h.name + path }

// Robots serves body as /robots.txt (text/plain, with validators).
func (h *Host) Robots(body string) *Resource {
	r := NewResource("text/plain; charset=utf-8", body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.robots, h.robotsStatus = r, 0
	delete(h.routes, "/robots.txt")
	return r
}

// RobotsFault makes the next times requests for /robots.txt answer fault
// (a 503, a reset) instead of the robots.txt configured, which is served
// again after them and is what the politeness checks judge by.
func (h *Host) RobotsFault(times int, fault http.Handler) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.robotsFault, h.robotsFaults = fault, times
}

// RobotsStatus makes /robots.txt answer status with no body.
func (h *Host) RobotsStatus(status int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.robots, h.robotsStatus = nil, status
	delete(h.routes, "/robots.txt")
}

// Put serves body at path (a path, or path?query) with contentType, as a
// static resource with an ETag and Last-Modified that honours conditional
// requests.
func (h *Host) Put(path, contentType, body string) *Resource {
	r := NewResource(contentType, body)
	h.Handle(path, r)
	return r
}

// Handle serves path with handler: a fault (see faults.go) or anything else.
// A handler at /robots.txt replaces the host's robots.txt.
func (h *Host) Handle(path string, handler http.Handler) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.routes[path] = handler
	if path == "/robots.txt" {
		h.robots, h.robotsStatus = nil, -1
	}
}

// Override answers every request to the host, robots.txt included, with
// handler (nil restores normal service): a host that is down, say.
func (h *Host) Override(handler http.Handler) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.override = handler
}

func (h *Host) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	handler := h.override
	if handler == nil {
		handler = h.routes[r.URL.RequestURI()]
	}
	if handler == nil {
		handler = h.routes[r.URL.Path]
	}
	if handler == nil && r.URL.Path == "/robots.txt" {
		switch {
		case h.robotsFaults > 0:
			h.robotsFaults--
			handler = h.robotsFault
		case h.robots != nil:
			handler = h.robots
		case h.robotsStatus > 0:
			handler = Status(h.robotsStatus)
		}
	}
	h.mu.Unlock()
	if handler == nil {
		http.NotFound(w, r)
		return
	}
	handler.ServeHTTP(w, r)
}
