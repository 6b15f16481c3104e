package fetch_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/memtest"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// pipeNet is an in-process network for a million sites: every name
// resolves to simweb.PublicAddr (so the guard, still on, judges a public
// address), and a dial to it is one end of a net.Pipe whose other end an
// http.Server serves. Loopback sockets would run out of ports long before.
type pipeNet struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeNet() *pipeNet {
	return &pipeNet{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// LookupNetIP answers "no such host" for a name starting with "dead": a
// blog gone since it was listed, which a crawl meets often.
func (p *pipeNet) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasPrefix(host, "dead") {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{simweb.PublicAddr}, nil
}

func (p *pipeNet) Dial(ctx context.Context, _, address string) (net.Conn, error) {
	if ap, err := netip.ParseAddrPort(address); err != nil || ap.Addr() != simweb.PublicAddr {
		return nil, fmt.Errorf("pipenet: no route to %s", address)
	}
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Accept, Close and Addr make pipeNet the server's listener.
func (p *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

func (p *pipeNet) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *pipeNet) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// keepNothing is a store that keeps the fetcher's robots.txt cache and
// refusal list outside the process: here nowhere, since every site is asked
// once and nothing stored is read back. It only counts the writes.
type keepNothing struct {
	robots, refusals atomic.Int64
}

func (*keepNothing) Robots(context.Context, string) (model.RobotsRecord, error) {
	return model.RobotsRecord{}, model.ErrNotFound
}

func (k *keepNothing) PutRobots(context.Context, model.RobotsRecord) error {
	k.robots.Add(1)
	return nil
}

// UpdateOriginStanding keeps nothing: the origins are not the crawl's, so
// a store would have no standing to update.
func (*keepNothing) UpdateOriginStanding(context.Context, model.Origin) error { return nil }

func (*keepNothing) Refusal(context.Context, string) (model.RefusalState, error) {
	return model.RefusalState{}, nil
}

func (k *keepNothing) PutRefusal(context.Context, string, model.RefusalState) error {
	k.refusals.Add(1)
	return nil
}

// BenchmarkManySitesMemory: the fetcher's heap after n distinct sites, each
// touched once through Fetch, wired as the crawler wires it (a store-backed
// robots cache and refusal list, the local lease), at 1,000 new sites a
// second of simulated time with MIN_GAP 1ms. Three sites in four answer
// robots.txt and one page on a kept-alive connection; the fourth is dead
// (its name does not resolve), so it leaves an unreachable robots.txt entry
// and a back-off behind. Reported: the peak heap during the run, and the
// heap in use after a collection at the end of the run, after a minute of
// idleness, and after two days of it (past MaxFloor twice: every last end
// the lease keeps is gone), idle connections closed each time. One request
// to a new site after each idle spell lets the sweeps run. Run with
// -benchtime=1x -timeout=60m.
func BenchmarkManySitesMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("sites=%d", n), func(b *testing.B) {
			for range b.N {
				manySites(b, n)
			}
		})
	}
}

func manySites(b *testing.B, n int) {
	clock := simweb.NewClock(start)
	pn := newPipeNet()
	var robotsReads, pages atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsReads.Add(1)
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "User-agent: *\nDisallow: /private/\n")
			return
		}
		pages.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, simweb.HTMLPage)
	})}
	go srv.Serve(pn)
	defer srv.Close()
	defer pn.Close()

	s := config.Defaults()
	s.MinGap = time.Millisecond
	st := &keepNothing{}
	lease := fetch.NewLocalLease(clock)
	f, err := fetch.New(fetch.Options{
		Settings: s, Clock: clock, Lease: lease,
		Robots: st, Refusals: st,
		Resolver: pn, Dial: pn.Dial, Proxy: fetch.NoProxy, Logger: discard,
	})
	if err != nil {
		b.Fatal(err)
	}
	live := func(n int) int64 { return int64(n - n/4) }
	fetchOne := func(i int) {
		u := fmt.Sprintf("http://s%07d.example/post", i)
		if i%4 == 0 {
			u = fmt.Sprintf("http://dead%07d.example/post", i)
		}
		res := f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: model.PurposePage})
		if (res.Outcome == model.OutcomeFetched) != (i%4 != 0) {
			b.Errorf("%s: %s %v", u, res.Outcome, res.Err)
		}
	}
	// heap closes the idle connections, lets the server's side of them
	// end, collects, and reads the live heap (HeapAlloc) and the heap in
	// use (HeapInuse: the spans holding live objects, with the room left
	// in them by the objects freed).
	heap := func() (live, inUse float64) {
		f.CloseIdleConnections()
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20), float64(m.HeapInuse) / (1 << 20)
	}

	b.ResetTimer()
	var next atomic.Int64
	peak := memtest.PeakHeap(func(func()) {
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
					clock.Advance(time.Millisecond) // 1,000 new sites a second
					fetchOne(i)
				}
			})
		}
		wg.Wait()
	})
	b.StopTimer()
	if robotsReads.Load() != live(n) || pages.Load() != live(n) {
		b.Fatalf("%d robots.txt reads and %d pages for %d live sites", robotsReads.Load(), pages.Load(), live(n))
	}
	afterRun, _ := heap()
	clock.Advance(time.Minute)
	fetchOne(n + 1)
	idleMinute, _ := heap()
	clock.Advance(2*24*time.Hour + time.Minute) // twice MaxFloor (a literal, so the run compiles before it too)
	fetchOne(n + 2)
	idleDays, idleDaysInUse := heap()
	if robotsReads.Load() != live(n)+2 {
		b.Errorf("%d robots.txt reads for %d live sites", robotsReads.Load(), live(n)+2)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(afterRun, "run-MiB")
	b.ReportMetric(idleMinute, "idle1m-MiB")
	b.ReportMetric(idleDays, "idle2d-MiB")
	b.ReportMetric(idleDaysInUse, "idle2d-inuse-MiB")
	b.ReportMetric(float64(lease.Sites()), "lease-sites")
	runtime.KeepAlive(f)
}
