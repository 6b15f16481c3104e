package simweb

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PublicAddr is where every simulated name resolves unless told otherwise:
// TEST-NET-3 (RFC 5737), public as far as the guard can tell, routed by
// Web.Dial to the loopback test server.
var PublicAddr = netip.MustParseAddr("203.0.113.10")

// Web is a simulated web. Configure hosts before fetching from them; the
// configuration is safe to change while requests run.
type Web struct {
	srv   *httptest.Server // plain http, port 80
	tls   *httptest.Server // https, port 443, certificates from ca
	ca    *authority
	now   func() time.Time
	mu    sync.Mutex
	hosts map[string]*Host
	addrs map[string]netip.Addr // names resolving somewhere other than PublicAddr
	rec   recorder
	dials dialCounts
	open  atomic.Int64 // connections the servers hold open (OpenConns)
	// dnsFaults and chaos are the transient faults of transient.go.
	dnsFaults map[string]int
	chaos     *chaos
	// latency delays every response (WithLatency); nil: none.
	latency *Latency
	// fallback serves the hosts not configured (Fallback); nil: none.
	fallback func(host string) http.Handler
	// shakes counts the https server's TLS handshakes (Handshakes).
	shakes handshakeCounts
}

// Option configures a Web.
type Option func(*Web)

// WithClock makes the recorder (and slow faults) use the given time, such as
// a *Clock shared with the fetcher.
func WithClock(now func() time.Time) Option { return func(w *Web) { w.now = now } }

// New starts a simulated web with no hosts. Close it when done.
func New(opts ...Option) *Web {
	w := &Web{now: time.Now, hosts: make(map[string]*Host), addrs: make(map[string]netip.Addr)}
	for _, o := range opts {
		o(w)
	}
	w.rec.now = func() time.Time { return w.now() }
	w.shakes.perHost = !w.rec.countOnly
	ca, err := newAuthority()
	if err != nil {
		panic(err) // only a broken crypto/rand gets here
	}
	w.ca = ca
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	// Connections the fetcher drops unread must not linger as idle handlers.
	w.srv.Config.ReadHeaderTimeout = 10 * time.Second
	w.srv.Config.ConnState = w.countConn
	w.srv.Start()
	w.tls = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	w.tls.Config.ReadHeaderTimeout = 10 * time.Second
	w.tls.Config.ConnState = w.countConn
	// crypto/tls issues session tickets by default, so a client that keeps
	// them (a ClientSessionCache) resumes instead of a full handshake.
	w.tls.TLS = &tls.Config{GetCertificate: ca.leaf, MinVersion: tls.VersionTLS12, VerifyConnection: w.shakes.verify}
	w.tls.StartTLS()
	return w
}

// countConn keeps OpenConns: the servers' hook for every change of a
// connection's state.
func (w *Web) countConn(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		w.open.Add(1)
	case http.StateClosed, http.StateHijacked:
		w.open.Add(-1)
	}
}

// OpenConns is how many connections the simulated servers hold open, idle
// ones included: what a crawler's connections cost the sites it asks.
func (w *Web) OpenConns() int { return int(w.open.Load()) }

// Close stops the servers.
func (w *Web) Close() {
	for _, s := range []*httptest.Server{w.srv, w.tls} {
		s.CloseClientConnections()
		s.Close()
	}
}

// Host returns the host called name, creating it (with no robots.txt, so it
// answers 404 for it, and no pages) on first use. It is served on both
// http (port 80) and https (port 443, see ClientTLS).
func (w *Web) Host(name string) *Host {
	name = strings.ToLower(name)
	w.mu.Lock()
	defer w.mu.Unlock()
	h, ok := w.hosts[name]
	if !ok {
		h = newHost(w, name)
		w.hosts[name] = h
	}
	return h
}

func (w *Web) lookup(name string) (*Host, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	h, ok := w.hosts[name]
	return h, ok
}

// serve records the request and hands it to its host.
func (w *Web) serve(rw http.ResponseWriter, r *http.Request) {
	name := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	done := w.rec.begin(name, r)
	sw := &statusWriter{ResponseWriter: rw, now: w.rec.now}
	defer func() { done(sw.status, sw.bytes, sw.sent) }()
	if w.latency != nil && !w.latency.wait(name, r) {
		return // the client went away
	}
	w.mu.Lock()
	c := w.chaos
	w.mu.Unlock()
	if fault := c.pick(); fault != nil {
		fault.ServeHTTP(sw, r)
		return
	}
	if h, ok := w.lookup(name); ok {
		h.serve(sw, r)
		return
	}
	if fb := w.fallbackFor(name); fb != nil {
		fb.ServeHTTP(sw, r)
		return
	}
	http.Error(sw, "no such simulated host", http.StatusMisdirectedRequest)
}

// statusWriter remembers what was sent, for the recorder.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	now    func() time.Time
	// sent is when the body's last piece (or the last Flush) began to go
	// out: a body larger than net/http's buffer reaches the client before
	// the handler returns, and a client that has read it all may act on
	// it before this goroutine records its return. The client cannot have
	// had the last byte before its piece began to go out, so a request's
	// End taken from here is never later than the client's own end (a
	// polite client's next request is never seen too soon), and it is at
	// most one piece's write earlier.
	sent time.Time
}

// writePiece is the most of a body written in one call, so that sent is
// close to when the body's last byte went out, not when a large body
// began to.
const writePiece = 16 << 10

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	return writePieces(s, b, s.ResponseWriter.Write)
}

// WriteString is Write for a body held as a string (package farm's
// documents), without copying it into a []byte first: net/http's writer
// takes strings as they are.
func (s *statusWriter) WriteString(str string) (int, error) {
	return writePieces(s, str, func(piece string) (int, error) { return io.WriteString(s.ResponseWriter, piece) })
}

// writePieces writes body through write a writePiece at a time, noting
// when each piece began to go out (sent) and the bytes written.
func writePieces[T string | []byte](s *statusWriter, body T, write func(T) (int, error)) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	written := 0
	for len(body) > 0 {
		piece := body[:min(len(body), writePiece)]
		s.sent = s.now()
		n, err := write(piece)
		written += n
		s.bytes += int64(n)
		if err != nil {
			return written, err
		}
		body = body[len(piece):]
	}
	return written, nil
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		s.sent = s.now()
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
