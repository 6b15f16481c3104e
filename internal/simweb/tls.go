package simweb

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"sync"
	"time"
)

// authority is the simulated web's own certificate authority: it signs a
// certificate for whatever name a client asks for (by SNI), so that https
// hosts are verified for real by a client that trusts it (Web.ClientTLS).
//
// Every leaf shares one key, generated once, and the authority keeps at
// most maxLeafs certificates (dropping them all when full): a farm of a
// hundred thousand https sites would otherwise cost the server a key
// generation each and tens of MiB of certificates, in the same process as
// the crawler being measured.
type authority struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	leafKey *ecdsa.PrivateKey
	mu      sync.Mutex
	serial  int64
	leafs   map[string]*tls.Certificate
}

// maxLeafs bounds the certificates an authority keeps; more than a
// crawler's sites in flight, so that a site's certificate is signed about
// once per visit at worst.
const maxLeafs = 16384

func newAuthority() (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("simweb CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "simweb test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("simweb CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("simweb CA: %w", err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("simweb leaf key: %w", err)
	}
	return &authority{cert: cert, key: key, leafKey: leafKey, serial: 1, leafs: make(map[string]*tls.Certificate)}, nil
}

// leaf returns (making once) a certificate for name.
func (a *authority) leaf(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	name := hello.ServerName
	if name == "" {
		name = "simweb.invalid"
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.leafs[name]; ok {
		return c, nil
	}
	a.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(a.serial),
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     []string{name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &a.leafKey.PublicKey, a.key)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: a.leafKey}
	if len(a.leafs) >= maxLeafs {
		clear(a.leafs)
	}
	a.leafs[name] = c
	return c, nil
}

// ClientTLS is a client configuration that trusts the simulated web's
// authority (and nothing else), for fetch.Options.TLS.
func (w *Web) ClientTLS() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(w.ca.cert)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}
