package fetch

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// ArchivedExchange is one request the fetcher sent and the 2xx response
// whose body it read, whole, for Options.Archive (a WARC writer, say).
//
// The headers and the body are the fetcher's own, shared with the Result
// the caller gets: an archive reads them and keeps none.
type ArchivedExchange struct {
	Purpose model.Purpose
	URL     string // the URL of this request: a hop of a redirect chain has its own
	Method  string // GET
	// RequestHeader is what was sent but Host, which URL names; Go's
	// transport adds nothing else, since Accept-Encoding is the fetcher's.
	RequestHeader  http.Header
	Status         int
	Proto          string // "HTTP/1.1", "HTTP/2.0"
	ResponseHeader http.Header
	// Body is the body as read: its Content-Encoding (gzip, br), which
	// ResponseHeader still names, is undone.
	Body []byte
	// Fetched is when the response's header arrived, on the fetcher's Clock.
	Fetched time.Time
	// RemoteAddr is the server's "ip:port"; "" when unknown or when the
	// request went through a proxy, whose address it would otherwise be.
	RemoteAddr string
}

// archives reports whether the exchange of a goes to Options.Archive once
// its body is read. robots.txt does not:
// it may be cut at BODY_MAX without failing, and the archive would record
// the cut body as the whole. A POST does not either: its form is not
// recorded. A streamed body (a sitemap's) never is, since it is not kept.
func (f *Fetcher) archives(a *attempt) bool {
	return f.archive != nil && a.purpose != model.PurposeRobots && a.form == nil
}

// remoteAddr notes the address of the connection a request was given.
// GotConn runs on the transport's side of the request; the address is read
// after Do returns, hence the lock.
type remoteAddr struct {
	mu   sync.Mutex
	addr string
}

func (r *remoteAddr) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if info.Conn == nil || info.Conn.RemoteAddr() == nil {
				return
			}
			r.mu.Lock()
			r.addr = info.Conn.RemoteAddr().String()
			r.mu.Unlock()
		},
	})
}

// server is the address noted, or "" when the request of ctx went through a
// proxy: the connection was the proxy's.
func (r *remoteAddr) server(ctx context.Context) string {
	if route, ok := ctx.Value(proxyRouteKey{}).(*proxyRoute); ok {
		route.mu.Lock()
		proxied := route.addr != ""
		route.mu.Unlock()
		if proxied {
			return ""
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr
}
