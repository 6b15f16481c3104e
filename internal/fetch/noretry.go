package fetch

import (
	"context"
	"errors"
	"net/http/httptrace"
	"sync/atomic"
)

// Go's http.Transport resends an idempotent request, once and silently, when
// a reused connection dies under it. For a polite crawler that is a second
// request outside the lease and the gap, so the fetcher counts the
// connections each request is given and refuses a second: the dialer will
// not dial for it, and if the transport finds an idle connection instead the
// request is cancelled.

// errNoResend is the dial refused to a request that already had a connection.
var errNoResend = errors.New("request not resent on a new connection")

type connCount struct{ n atomic.Int32 }

type connCountKey struct{}

// withConnCount marks ctx so that the request made with it gets one
// connection at most; cancel is called if the transport finds a second.
func withConnCount(ctx context.Context, cancel context.CancelFunc) context.Context {
	c := &connCount{}
	ctx = context.WithValue(ctx, connCountKey{}, c)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			if c.n.Add(1) > 1 {
				cancel()
			}
		},
	})
}

// resending reports whether a dial is for a request that already had its
// connection.
func resending(ctx context.Context) bool {
	c, ok := ctx.Value(connCountKey{}).(*connCount)
	return ok && c.n.Load() > 0
}
