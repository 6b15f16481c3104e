package fetch

import (
	"context"
	"net"
	"sync"
	"sync/atomic"

	"corpus.blog/corpusbot/internal/model"
)

// Connections kept for a site after its visit. Go's transport keeps a
// site's connection open for IdleConnTimeout after its last request, which
// is what lets the next request of the visit skip a handshake, however long
// the site's gap. Once the crawler is done with the site, the connection is
// only a cost: a socket, buffers and goroutines on both ends, the site's
// end included, for nothing. So the fetcher remembers which connections
// were dialled for which site, and VisitDone closes them.
//
// A connection is closed only while none of this fetcher's requests to the
// site is under way. A request that starts within microseconds of the close
// (another part of the process asking the same site just as the crawler
// finishes with it) may still be handed the closing connection before the
// transport notices; it then fails without having sent anything and is
// tried again on its next turn, like any reused connection the server
// closed. The crawler's own site work never does this: a site's visit is one
// goroutine, and VisitDone is called after it returns.
//
// Connections through a proxy are not tracked: one proxy connection may
// carry many sites' requests. Each hop of a redirect is its own request
// under its own site's lease, so a connection a visit opens to another site
// is recorded under that site and closed by that site's visit or by the
// idle timeout; a dial to an address outside the request's site (which the
// fetcher never makes) is not recorded at all, since another site's visit
// could be using it when this one ends.

// siteConns is the fetcher's record of the connections open per site.
type siteConns struct {
	mu    sync.Mutex
	sites map[string]*siteConnSet
	peak  int // the most sites held since sites was last rebuilt
}

// siteConnSet is one site's connections, and its requests under way.
type siteConnSet struct {
	conns  []*siteConn
	active int
}

// siteConn is a connection dialled for a site; closing it removes it from
// the record.
type siteConn struct {
	net.Conn
	site   string
	record *siteConns
	// forgotten is set by whichever comes first, Close or closeIdle. It is
	// an atomic flag and not a sync.Once, so that neither waits for the
	// other while holding a lock: closeIdle holds record.mu, and a Close
	// from the transport's read loop (the site hung up) takes record.mu
	// inside its Once; with a Once each could wait for the other for ever.
	forgotten atomic.Bool
}

func (c *siteConn) Close() error {
	if c.forgotten.CompareAndSwap(false, true) {
		c.record.forget(c)
	}
	return c.Conn.Close()
}

// siteKey carries the site a request is for to the dialer.
type siteKey struct{}

func withSite(ctx context.Context, site string) context.Context {
	return context.WithValue(ctx, siteKey{}, site)
}

func siteOf(ctx context.Context) string {
	s, _ := ctx.Value(siteKey{}).(string)
	return s
}

// set returns site's entry, creating it. Called with mu held.
func (r *siteConns) set(site string) *siteConnSet {
	if r.sites == nil {
		r.sites = make(map[string]*siteConnSet)
	}
	s, ok := r.sites[site]
	if !ok {
		s = &siteConnSet{}
		r.sites[site] = s
		r.peak = max(r.peak, len(r.sites))
	}
	return s
}

// drop deletes site's entry if it holds nothing, and gives the map's
// buckets back once it has shrunk far below its peak. Called with mu held.
func (r *siteConns) drop(site string, s *siteConnSet) {
	if len(s.conns) > 0 || s.active > 0 {
		return
	}
	delete(r.sites, site)
	if r.peak > 64 && len(r.sites) < r.peak/4 {
		m := make(map[string]*siteConnSet, len(r.sites))
		for k, v := range r.sites {
			m[k] = v
		}
		r.sites, r.peak = m, len(m)
	}
}

// begin counts a request to site under way; the returned func ends it.
func (r *siteConns) begin(site string) (end func()) {
	r.mu.Lock()
	s := r.set(site)
	s.active++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		s.active--
		r.drop(site, s)
		r.mu.Unlock()
	}
}

// track records conn, dialled to addr, as the site's whose request it is
// for, if ctx names one and addr belongs to it.
func (r *siteConns) track(ctx context.Context, addr string, conn net.Conn) net.Conn {
	site := siteOf(ctx)
	if site == "" || model.Site(addr) != site {
		return conn
	}
	c := &siteConn{Conn: conn, site: site, record: r}
	r.mu.Lock()
	s := r.set(site)
	s.conns = append(s.conns, c)
	r.mu.Unlock()
	return c
}

func (r *siteConns) forget(c *siteConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sites[c.site]
	if !ok {
		return
	}
	for i, x := range s.conns {
		if x == c {
			s.conns = append(s.conns[:i], s.conns[i+1:]...)
			break
		}
	}
	r.drop(c.site, s)
}

// closeIdle closes site's connections if none of its requests is under
// way, and reports how many it closed.
func (r *siteConns) closeIdle(site string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closeIdleLocked(site)
}

// closeIdleLocked is closeIdle with mu held. The connections are closed
// with mu held, so that no request of the site begins before every one of
// them is closed (a close is one system call); a Close of one of them
// under way meanwhile waits for mu in forget, and then finds it gone.
func (r *siteConns) closeIdleLocked(site string) int {
	s, ok := r.sites[site]
	if !ok || s.active > 0 {
		return 0
	}
	conns := s.conns
	s.conns = nil
	r.drop(site, s)
	for _, c := range conns {
		c.forgotten.Store(true)
		c.Conn.Close()
	}
	return len(conns)
}
