package simweb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// Addr is the loopback address of the plain-http test server, for worker
// processes that fetch from this web through Remote.
func (w *Web) Addr() string { return w.srv.Listener.Addr().String() }

// TLSAddr is the loopback address of the https test server, for a
// Remote's TLSAddr.
func (w *Web) TLSAddr() string { return w.tls.Listener.Addr().String() }

// CACertPEM is the simulated web's certificate authority, PEM-encoded, for
// a Remote's CA: a client in another process that trusts it verifies the
// https hosts of this web as Web.ClientTLS does.
func (w *Web) CACertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.ca.cert.Raw})
}

// Remote is a simulated web served by another process (Web.Addr and
// Web.TLSAddr there): every name resolves to PublicAddr, and Dial routes
// PublicAddr to those addresses on loopback (port 443 to TLSAddr, any
// other port to Addr) and refuses everything else. It is how a cluster
// test's worker processes share one web whose server sees, and checks,
// the requests of all of them, and how a benchmark keeps the server's CPU
// and memory out of the crawler's process. Without TLSAddr, plain http
// only.
type Remote struct {
	Addr    string
	TLSAddr string
	// CA is the remote web's Web.CACertPEM, for ClientTLS.
	CA []byte
}

// LookupNetIP resolves every name to PublicAddr; it satisfies fetch.Resolver.
func (Remote) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{PublicAddr}, nil
}

// Dial connects PublicAddr to the remote web.
func (r Remote) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || ap.Addr().Unmap() != PublicAddr {
		return nil, fmt.Errorf("simweb: no route to %s", address)
	}
	to := r.Addr
	if ap.Port() == 443 {
		to = r.TLSAddr
	}
	if to == "" {
		return nil, fmt.Errorf("simweb: no route to %s", address)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", to)
}

// ClientTLS is a client configuration that trusts the remote web's
// authority (CA) and nothing else, as Web.ClientTLS is for a web in the
// same process.
func (r Remote) ClientTLS() (*tls.Config, error) {
	if len(r.CA) == 0 {
		return nil, errors.New("simweb: remote web's CA certificate not given")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(r.CA) {
		return nil, errors.New("simweb: remote web's CA certificate unreadable")
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
