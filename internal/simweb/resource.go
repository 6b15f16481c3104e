package simweb

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
)

// Resource is a static document with validators. By default it has a strong
// ETag derived from its body and a Last-Modified date, and answers 304 to a
// request whose If-None-Match (or, without one, If-Modified-Since) matches.
type Resource struct {
	mu           sync.Mutex
	contentType  string
	data         []byte
	etag         string
	lastModified string
	date         string // a fixed Date header, "" for the server's own
	encoding     string // "gzip" or "br": sent compressed when accepted
	served, not  int    // 200s and 304s
}

// ModTime is the Last-Modified every new resource starts with.
var ModTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// NewResource makes a resource that can be served on any host.
func NewResource(contentType, body string) *Resource {
	r := &Resource{contentType: contentType}
	r.set(body, ModTime)
	return r
}

func (r *Resource) set(body string, mod time.Time) {
	r.data = []byte(body)
	sum := sha256.Sum256(r.data)
	r.etag = fmt.Sprintf(`"%x"`, sum[:8])
	r.lastModified = mod.UTC().Format(http.TimeFormat)
}

// Update replaces the body, with a new ETag and a Last-Modified of mod.
func (r *Resource) Update(body string, mod time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.set(body, mod)
}

// Validators sets the ETag and Last-Modified exactly as given ("" sends
// none), such as a weak or "-gzip" ETag.
func (r *Resource) Validators(etag, lastModified string) *Resource {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.etag, r.lastModified = etag, lastModified
	return r
}

// Date sends date as the Date header, fixed, in place of the server's.
func (r *Resource) Date(date string) *Resource {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.date = date
	return r
}

// Encode sends the body compressed with enc ("gzip" or "br") to clients
// that accept it.
func (r *Resource) Encode(enc string) *Resource {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.encoding = enc
	return r
}

// Counts is how many times the resource was served in full and as a 304.
func (r *Resource) Counts() (full, notModified int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.served, r.not
}

func (r *Resource) body() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.data
}

func (r *Resource) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	etag, lm, date, ct, enc, data := r.etag, r.lastModified, r.date, r.contentType, r.encoding, r.data
	notModified := r.matches(req, etag, lm, date)
	if notModified {
		r.not++
	} else {
		r.served++
	}
	r.mu.Unlock()
	hd := w.Header()
	if etag != "" {
		hd.Set("ETag", etag)
	}
	if lm != "" {
		hd.Set("Last-Modified", lm)
	}
	if date != "" {
		hd.Set("Date", date)
	}
	if notModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if ct != "" {
		hd.Set("Content-Type", ct)
	}
	if enc != "" && strings.Contains(req.Header.Get("Accept-Encoding"), enc) {
		data = compress(enc, data)
		hd.Set("Content-Encoding", enc)
	}
	hd.Set("Content-Length", fmt.Sprint(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// matches applies RFC 9110 §13.1: If-None-Match decides when present;
// otherwise If-Modified-Since, compared exactly or as a date.
func (r *Resource) matches(req *http.Request, etag, lm, date string) bool {
	if inm := req.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			if t = strings.TrimSpace(t); t == "*" || (etag != "" && t == etag) {
				return true
			}
		}
		return false
	}
	ims := req.Header.Get("If-Modified-Since")
	if ims == "" {
		return false
	}
	if lm == "" {
		lm = date
	}
	if lm == "" {
		return false
	}
	if ims == lm {
		return true
	}
	a, err1 := http.ParseTime(ims)
	b, err2 := http.ParseTime(lm)
	return err1 == nil && err2 == nil && !b.After(a)
}

func compress(enc string, data []byte) []byte {
	var buf bytes.Buffer
	switch enc {
	case "gzip":
		z := gzip.NewWriter(&buf)
		_, _ = z.Write(data)
		_ = z.Close()
	case "br":
		z := brotli.NewWriter(&buf)
		_, _ = z.Write(data)
		_ = z.Close()
	default:
		return data
	}
	return buf.Bytes()
}
