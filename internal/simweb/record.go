package simweb

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// Request is one request as the server saw it.
type Request struct {
	Host string // lowercase, without port
	Site string // registrable domain of Host, computed here independently of the fetcher
	URI  string // path and query as requested
	// Header is as sent. It is shared with the other requests that sent
	// the same one (a crawler sends the same few headers hundreds of
	// thousands of times): read it, do not change it.
	Header   http.Header
	Start    time.Time
	End      time.Time // when the handler returned, or, if it wrote a body, when the body's last piece began to go out
	Status   int
	Bytes    int64 // body bytes written
	InFlight int   // requests to the same site in flight when this one started, itself included
}

type recorder struct {
	now       func() time.Time
	countOnly bool // keep no Request, only the Tally
	mu        sync.Mutex
	reqs      []*Request
	inFlight  map[string]int
	tally     Tally
	headers   map[string]http.Header // the distinct headers recorded, by headerKey
}

// maxHeaders is the most distinct headers kept for sharing; past it, a
// new one is kept by its request alone.
const maxHeaders = 4096

// header is h, or an equal header recorded before: a record of the
// seed's 660,000 requests keeps a few dozen header maps, not 660,000.
// Called with rc.mu held.
func (rc *recorder) header(h http.Header) http.Header {
	key := headerKey(h)
	if known, ok := rc.headers[key]; ok {
		return known
	}
	c := h.Clone()
	if rc.headers == nil {
		rc.headers = make(map[string]http.Header)
	}
	if len(rc.headers) < maxHeaders {
		rc.headers[key] = c
	}
	return c
}

// headerKey is h written out in a canonical order: equal headers, equal keys.
func headerKey(h http.Header) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, k := range names {
		for _, v := range h[k] {
			b.WriteString(k)
			b.WriteByte(0)
			b.WriteString(v)
			b.WriteByte('\n')
		}
		b.WriteByte(1) // a name's values end: {"a": ["x", "y"]} is not {"a": ["x"], ...}
	}
	return b.String()
}

// Tally is what the recorder counted: requests received, and those that
// arrived while another request to the same site was in flight.
type Tally struct {
	Requests, Overlaps int64
}

// CountOnly makes the recorder keep no request, only their Tally: for a
// population of a hundred thousand sites, whose requests would not fit in
// memory. Requests then returns none, and Violations finds nothing.
func CountOnly() Option { return func(w *Web) { w.rec.countOnly = true } }

// begin records a request's start; the returned func records its end:
// sent (when the body's last piece began to go out, see statusWriter) if
// not zero, else now.
func (rc *recorder) begin(host string, r *http.Request) func(status int, bytes int64, sent time.Time) {
	site := siteOf(host)
	rc.mu.Lock()
	if rc.inFlight == nil {
		rc.inFlight = make(map[string]int)
	}
	rc.inFlight[site]++
	rc.tally.Requests++
	if rc.inFlight[site] > 1 {
		rc.tally.Overlaps++
	}
	if rc.countOnly {
		rc.mu.Unlock()
		return func(int, int64, time.Time) {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if rc.inFlight[site]--; rc.inFlight[site] == 0 {
				delete(rc.inFlight, site) // a site at a time, not every site ever seen
			}
		}
	}
	req := &Request{Host: host, Site: site, URI: r.URL.RequestURI(), Header: rc.header(r.Header), Start: rc.now(), InFlight: rc.inFlight[site]}
	rc.reqs = append(rc.reqs, req)
	rc.mu.Unlock()
	return func(status int, bytes int64, sent time.Time) {
		end := rc.now()
		if !sent.IsZero() {
			end = sent
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.inFlight[site]--
		req.End, req.Status, req.Bytes = end, status, bytes
	}
}

// Tally is what the recorder counted so far (Reset does not clear it).
func (w *Web) Tally() Tally {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	return w.rec.tally
}

// siteOf is the registrable domain of host, the site politeness is counted by.
func siteOf(host string) string {
	if !strings.Contains(host, ".") || strings.Contains(host, ":") || strings.Trim(host, "0123456789.") == "" {
		return host
	}
	s, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return s
}

// Requests returns every request so far, in order of arrival.
func (w *Web) Requests() []Request {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	out := make([]Request, len(w.rec.reqs))
	for i, r := range w.rec.reqs {
		out[i] = *r
	}
	return out
}

// RequestsTo returns the requests to host, in order of arrival.
func (w *Web) RequestsTo(host string) []Request {
	var out []Request
	for _, r := range w.Requests() {
		if r.Host == strings.ToLower(host) {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the requests recorded so far.
func (w *Web) Reset() {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	w.rec.reqs = nil
}

// BySite groups requests per site, each group ordered by start time.
func BySite(reqs []Request) map[string][]Request {
	m := make(map[string][]Request)
	for _, r := range reqs {
		m[r.Site] = append(m[r.Site], r)
	}
	for _, rs := range m {
		slices.SortStableFunc(rs, func(a, b Request) int { return a.Start.Compare(b.Start) })
	}
	return m
}
