package fetch

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/model"
)

// Timeouts bound each stage of a request. A slow-drip server is cut off by
// Total, which covers the whole body.
type Timeouts struct {
	Dial   time.Duration // TCP connect
	TLS    time.Duration // TLS handshake
	Header time.Duration // request sent to response headers received
	Total  time.Duration // the whole exchange, body included
}

// DefaultTimeouts are generous for a slow blog host and short enough that one
// hung site does not hold a worker for long.
var DefaultTimeouts = Timeouts{Dial: 10 * time.Second, TLS: 10 * time.Second, Header: 30 * time.Second, Total: 60 * time.Second}

// Options configure a Fetcher. Only Settings is required; every other field
// has an in-process default.
type Options struct {
	Settings config.Settings
	Clock    Clock // default RealClock
	Lease    Lease // default NewLocalLease(Clock)
	// Robots is where robots.txt entries outlive the process, Refusals
	// where the 403 refusal list does (a store.DB): the fetcher keeps a
	// memory of each in front (RobotsCache, Refusals), its expiries bounded
	// by the robots TTLs of Settings. nil: the memory is the only copy.
	Robots   RobotsStore
	Refusals RefusalStore
	// RobotsHold, in a cluster, has the workers read each origin's
	// robots.txt once between them (RobotsCache); zero: this process
	// alone reads and writes Robots' entries.
	RobotsHold RobotsHold
	// Waits keeps the sites' back-off and Retry-After beyond the process
	// (wait.go); nil: they live in memory only.
	Waits Waits
	// OptedOut reports whether a site's owner opted out (the public site's
	// form). It is asked under the site's lease right before every
	// connection, robots.txt included, so an opt-out holds from the moment
	// it is stored, even for work already handed out. An error says it
	// could not tell: nothing is sent, and the request fails with
	// ErrStoreDown (storegate.go). nil: none.
	OptedOut func(ctx context.Context, site string) (bool, error)
	// Store is the health of the store that records every request: none is
	// sent while it cannot (storegate.go). nil: always sent.
	Store   StoreHealth
	Observe func(model.RequestRecord)
	// Archive, when set, is given every exchange whose 2xx body was read
	// and kept whole (ArchivedExchange; not robots.txt, a POST or a
	// streamed sitemap), after the site's lease is given back, so that
	// writing it costs the site no time. Declined and failed requests,
	// redirects and 304s never reach it. It may be called from many sites'
	// goroutines at once. nil: nothing is kept for it.
	Archive func(ctx context.Context, x ArchivedExchange)
	Logger  *slog.Logger // nil: slog.Default (logging.OrDefault)

	// Resolver and Dial are the network under the guard: tests substitute
	// them (see package simweb) and the guard still judges every address.
	// Resolver also names the addresses of a target handed to a proxy, for
	// the guard to judge. Defaults: net.DefaultResolver and a net.Dialer
	// whose Control runs the guard again on the address actually connected.
	Resolver Resolver
	Dial     DialFunc
	// Proxy chooses a proxy per request; default http.ProxyFromEnvironment
	// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY). The proxy itself is dialled
	// without the guard, but the target of every request handed to it is
	// judged first, by its name and by what Resolver says of it (see the
	// package doc; a name Resolver cannot resolve is refused, or with
	// PROXY_DNS=proxy left to the proxy); with ALLOW_PRIVATE on, nothing is.
	Proxy func(*http.Request) (*url.URL, error)
	// TLS is the client TLS configuration (nil: the system's roots); tests
	// pass simweb's ClientTLS.
	TLS      *tls.Config
	Timeouts Timeouts // zero fields take DefaultTimeouts

	// A response that takes SlowAfter or longer raises the site's gap to
	// SlowFactor times its duration. Defaults 2s and 4.
	SlowAfter  time.Duration
	SlowFactor int

	// BodyBudget bounds the bytes of response bodies read and not yet
	// released (Result.Release) or collected, across every request of the
	// fetcher: a body waits for room before it is read, so that a crawler
	// of thousands of sites at once holds a bounded number of pages between
	// their arrival and their parse. 0: DefaultBodyBudget; negative:
	// unbounded. robots.txt files and streamed bodies (sitemaps) are not
	// counted.
	BodyBudget int64
}

// NoProxy is an Options.Proxy that never uses one, whatever the environment.
func NoProxy(*http.Request) (*url.URL, error) { return nil, nil }

// Fetcher sends every request of the crawler. Safe for concurrent use.
type Fetcher struct {
	s          config.Settings
	agent      string // product token for robots.txt groups
	clock      Clock
	lease      Lease
	robots     *RobotsCache
	refusals   *Refusals
	optedOut   func(ctx context.Context, site string) (bool, error)
	store      StoreHealth
	observe    func(model.RequestRecord)
	archive    func(context.Context, ArchivedExchange)
	log        *slog.Logger
	client     *http.Client
	timeouts   Timeouts
	slowAfter  time.Duration
	bodies     *bodyBudget // nil: unbounded
	slowFactor int
	backoffs   backoffs
	waits      Waits
	waitsOnce  sync.Once
	stored     storedWaits
	robotsOnce flights
	conns      siteConns // the connections open per site, for VisitDone
}

// New builds a Fetcher.
func New(o Options) (*Fetcher, error) {
	if o.Settings.UserAgent == "" {
		return nil, fmt.Errorf("fetch: settings have no user agent")
	}
	if o.Settings.BodyMax <= 0 {
		return nil, fmt.Errorf("fetch: BODY_MAX must be positive")
	}
	f := &Fetcher{
		s: o.Settings, agent: o.Settings.ProductToken(), clock: o.Clock, lease: o.Lease,
		waits: o.Waits, optedOut: o.OptedOut, store: o.Store, observe: o.Observe, archive: o.Archive, log: o.Logger,
		timeouts: o.Timeouts, slowAfter: o.SlowAfter, slowFactor: o.SlowFactor,
	}
	switch {
	case o.BodyBudget == 0:
		f.bodies = newBodyBudget(DefaultBodyBudget)
	case o.BodyBudget > 0:
		f.bodies = newBodyBudget(o.BodyBudget)
	}
	if f.clock == nil {
		f.clock = RealClock{}
	}
	if f.lease == nil {
		f.lease = NewLocalLease(f.clock)
	}
	f.log = logging.OrDefault(f.log)
	// Entries read back from the store expire as the TTLs now set say, and
	// every read of robots.txt updates its origin's standing.
	f.robots = NewRobotsCache(o.Robots, RobotsCacheOptions{Clock: f.clock, Log: f.log,
		Bound: true, TTL: o.Settings.RobotsTTL, GuessTTL: o.Settings.RobotsGuessTTL, Agent: f.agent, Hold: o.RobotsHold})
	f.refusals = NewRefusals(o.Refusals, f.clock.Now, f.log)
	d := DefaultTimeouts
	f.timeouts = Timeouts{
		Dial: or(o.Timeouts.Dial, d.Dial), TLS: or(o.Timeouts.TLS, d.TLS),
		Header: or(o.Timeouts.Header, d.Header), Total: or(o.Timeouts.Total, d.Total),
	}
	f.slowAfter = or(f.slowAfter, 2*time.Second)
	if f.slowFactor <= 0 {
		f.slowFactor = 4
	}
	f.client = f.newClient(o)
	return f, nil
}

func or(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}

// newClient builds the one HTTP client: no cookie jar, no automatic
// redirects (each hop is checked and leased on its own), no transparent
// decompression (we ask for gzip and br ourselves and bound the decoding).
//
// The transport is replaced by a fresh one every transportDials dials (see
// transports), so that what Go's transport keeps per host does not grow with
// every site ever asked.
func (f *Fetcher) newClient(o Options) *http.Client {
	resolver := o.Resolver
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	dial := o.Dial
	if dial == nil {
		nd := &net.Dialer{Timeout: f.timeouts.Dial}
		if !o.Settings.AllowPrivate {
			nd.Control = guardControl
		}
		dial = nd.DialContext
	}
	g := &guardedDialer{resolver: resolver, dial: dial, allowPrivate: o.Settings.AllowPrivate,
		proxyDNS: o.Settings.ProxyDNS == config.ProxyDNSProxy, judgeTimeout: min(proxyJudgeTimeout, f.timeouts.Dial)}
	// The proxy itself is dialled without the guard: it is the operator's,
	// and often on loopback or the local network.
	proxyDialer := &net.Dialer{Timeout: f.timeouts.Dial}
	proxy := o.Proxy
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	tlsConf := withSessionCache(o.TLS)
	ts := &transports{}
	ts.build = func() *http.Transport {
		return &http.Transport{
			// Called before every request (every redirect hop is one): a
			// request handed to a proxy has its target judged here, since
			// the proxy, not our dialer, will connect to it.
			Proxy: func(r *http.Request) (*url.URL, error) {
				u, err := proxy(r)
				if err != nil || u == nil {
					return u, err
				}
				if err := g.judgeTarget(r.Context(), r.URL.Hostname()); err != nil {
					return nil, err
				}
				port := u.Port()
				if port == "" {
					port = model.DefaultPort(u.Scheme)
				}
				noteProxy(r.Context(), net.JoinHostPort(u.Hostname(), port))
				return u, nil
			},
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				if resending(ctx) {
					return nil, errNoResend
				}
				ts.dials.Add(1)
				if toProxy(ctx, addr) {
					return proxyDialer.DialContext(ctx, network, addr)
				}
				conn, err := g.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return f.conns.track(ctx, addr, conn), nil
			},
			TLSClientConfig:       tlsConf.Clone(), // the transport adds to its own copy (NextProtos)
			TLSHandshakeTimeout:   f.timeouts.TLS,
			ResponseHeaderTimeout: f.timeouts.Header,
			DisableCompression:    true,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          4096,
			MaxIdleConnsPerHost:   1, // one request in flight per site: one connection is all a host needs
			IdleConnTimeout:       idleConnTimeout,
		}
	}
	ts.cur.Store(ts.build())
	ts.built = 1
	return &http.Client{
		Transport:     ts,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// idleConnTimeout is how long a site's connection is kept between two
// requests: longer than any wait within a visit (MIN_GAP, a Crawl-delay,
// the catalogue delay, up to the crawler's horizon of 30 s beyond which a
// site leaves to wait), also when the process comes back to the site late
// because its CPU was busy with other sites. At 10 s, the seed's first
// pass at real page sizes on two loaded cores (BenchmarkSeedFirstPassWall) opened
// 1.90 connections a site over https and 3.19 over http; at 35 s, 1.08
// (the rest: sites whose robots.txt answered 503, asked again 30 s later,
// and answers of the wrong type dropped unread). A longer timeout holds
// nothing once a visit is over: VisitDone closes the site's connections.
const idleConnTimeout = 35 * time.Second

// sessionCacheSize is how many sites' TLS sessions the fetcher keeps: more
// than the sites in flight at the default CONCURRENCY (2048), so that a site
// whose connection closed during its visit (an idle timeout across a long
// Crawl-delay, a server that hangs up) resumes with an abbreviated handshake
// rather than a full one, at a few KiB a session.
const sessionCacheSize = 4096

// withSessionCache is a copy of conf (nil: the system's roots) that keeps
// TLS sessions for resumption, unless conf has a session cache of its own:
// Go's transport keeps none by default, so every new connection to a site
// would pay a full handshake, certificate verification included.
func withSessionCache(conf *tls.Config) *tls.Config {
	c := conf.Clone()
	if c == nil {
		c = &tls.Config{}
	}
	if c.ClientSessionCache == nil {
		c.ClientSessionCache = tls.NewLRUClientSessionCache(sessionCacheSize)
	}
	return c
}

// CloseIdleConnections closes the connections kept for reuse.
func (f *Fetcher) CloseIdleConnections() { f.client.CloseIdleConnections() }

// VisitDone closes the connections kept open for site, unless a request to
// it is under way: the crawler calls it when it is done with the site for
// now, so that neither end holds an idle connection until it times out
// (see siteConns).
func (f *Fetcher) VisitDone(site string) { f.conns.closeIdle(site) }

// transportDials is how many dials a transport serves before it is
// replaced: what it keeps of hosts it is done with (about half a KiB each,
// see transports) stays under 10 MiB, and the idle connections dropped at
// each replacement cost the sites in flight one new connection per this
// many dials.
const transportDials = 16384

// transports is the fetcher's http.RoundTripper: one http.Transport at a
// time, replaced by a fresh one after transportDials dials.
//
// Go's Transport keeps a record of every request that had to dial (a
// wantConn, with the request's context values) in a queue per host, and
// empties a host's queue only when one of its connections goes back to the
// idle pool or the host is asked again (golang.org/issue/50798). A host whose
// last connection never goes idle (a failed dial, a server that closes after
// its answer, a body left unread) keeps its record for as long as the
// transport lives: for a crawler asking a million hosts, memory that grows
// with every site ever seen. A replaced transport is dropped, with all it
// kept, once its last request ends; its idle connections are closed at once.
type transports struct {
	build func() *http.Transport
	cur   atomic.Pointer[http.Transport]
	dials atomic.Int64 // since cur was built
	mu    sync.Mutex   // one replacement at a time
	built int          // transports built so far, under mu (for tests)
}

// RoundTrip sends req on the current transport, replacing it first if it
// has dialled enough.
func (ts *transports) RoundTrip(req *http.Request) (*http.Response, error) {
	if ts.dials.Load() >= transportDials {
		ts.replace()
	}
	return ts.cur.Load().RoundTrip(req)
}

func (ts *transports) replace() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.dials.Load() < transportDials {
		return // replaced while we waited
	}
	old := ts.cur.Swap(ts.build())
	ts.dials.Store(0)
	ts.built++
	old.CloseIdleConnections()
}

// CloseIdleConnections closes the current transport's idle connections
// (a replaced one has closed its own).
func (ts *transports) CloseIdleConnections() { ts.cur.Load().CloseIdleConnections() }
