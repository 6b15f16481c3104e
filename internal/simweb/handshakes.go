package simweb

import (
	"crypto/tls"
	"sync"
)

// Handshakes counts the TLS handshakes the https server completed: Full
// ones (a certificate sent and signed, key exchange and all) and Resumed
// ones (a session ticket the client kept from an earlier connection), the
// difference a crawler's connection reuse and session cache make to what
// it costs a site.
type Handshakes struct {
	Full, Resumed int64
}

// Total is every handshake, full or resumed.
func (h Handshakes) Total() int64 { return h.Full + h.Resumed }

// handshakeCounts is the server's record: totals always, per host unless
// the recorder keeps counts only (CountOnly: a population too large for a
// map entry per host).
type handshakeCounts struct {
	mu     sync.Mutex
	total  Handshakes
	byHost map[string]Handshakes
	// perHost is false under CountOnly.
	perHost bool
}

// verify is the server's tls.Config.VerifyConnection: crypto/tls calls it
// once for every handshake, resumed ones included (GetCertificate is not
// called on resumption, so it cannot count them).
func (c *handshakeCounts) verify(cs tls.ConnectionState) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	add := func(h *Handshakes) {
		if cs.DidResume {
			h.Resumed++
		} else {
			h.Full++
		}
	}
	add(&c.total)
	if c.perHost {
		if c.byHost == nil {
			c.byHost = make(map[string]Handshakes)
		}
		h := c.byHost[cs.ServerName]
		add(&h)
		c.byHost[cs.ServerName] = h
	}
	return nil
}

// Handshakes is how many TLS handshakes the https server has completed, to
// every host.
func (w *Web) Handshakes() Handshakes {
	w.shakes.mu.Lock()
	defer w.shakes.mu.Unlock()
	return w.shakes.total
}

// HandshakesTo is how many TLS handshakes the https server has completed
// for host (by the name the client sent, SNI); always zero under
// CountOnly.
func (w *Web) HandshakesTo(host string) Handshakes {
	w.shakes.mu.Lock()
	defer w.shakes.mu.Unlock()
	return w.shakes.byHost[host]
}
