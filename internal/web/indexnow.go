package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/push"
)

// IndexNowData is the store's side of IndexNow; *store.DB implements
// it (store.Push). nil in Options: /indexnow answers 404.
type IndexNowData interface {
	// IndexNowHolds reports whether a source that is not paused is on
	// the site of host.
	IndexNowHolds(ctx context.Context, host string) (bool, error)
	// IndexNowDue makes each URL owe a conditional page fetch (a new
	// post under the source of its site when unknown, first seen at now)
	// and says how many.
	IndexNowDue(ctx context.Context, now time.Time, urls []string) (int, error)
}

// IndexNowFetcher reads a key file through the crawler's polite fetcher
// (crawl.IndexNowKeys): the body of a 2xx answer (at most
// push.MaxKeyFile bytes) and the URL it finally came from.
type IndexNowFetcher interface {
	FetchKeyFile(ctx context.Context, rawURL string) (body []byte, finalURL string, err error)
}

// maxSubmission bounds a POST: 10,000 URLs of a hundred bytes or so.
const maxSubmission = 2 << 20

// keyTTL is how long a verified key is believed for its host without
// reading the file again; keyCacheMax bounds the hosts remembered.
const (
	keyTTL      = 24 * time.Hour
	keyCacheMax = 10000
)

// keyCache remembers keys verified per host, so that a host submitting
// often costs one key-file read a day.
type keyCache struct {
	mu   sync.Mutex
	keys map[string]verifiedKey
}

type verifiedKey struct {
	key, file string
	until     time.Time
}

func (c *keyCache) ok(host, key, file string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, found := c.keys[host]
	return found && v.key == key && v.file == file && now.Before(v.until)
}

func (c *keyCache) put(host, key, file string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil || len(c.keys) >= keyCacheMax {
		c.keys = map[string]verifiedKey{} // a flood costs re-reads, never memory
	}
	c.keys[host] = verifiedKey{key: key, file: file, until: now.Add(keyTTL)}
}

func (s *Server) indexNowGet(w http.ResponseWriter, r *http.Request) {
	if !s.indexNowAllowed(w, r) {
		return
	}
	sub, err := push.FromQuery(r.URL.Query())
	s.indexNow(w, r, sub, err)
}

func (s *Server) indexNowPost(w http.ResponseWriter, r *http.Request) {
	if !s.indexNowAllowed(w, r) {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSubmission))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "submission too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "submission not read", http.StatusBadRequest)
		return
	}
	sub, err := push.ParseSubmission(body)
	s.indexNow(w, r, sub, err)
}

// indexNowAllowed answers 404 when IndexNow is not offered and 429 when
// the client has sent too many submissions (a token bucket per address,
// shaped like the forms' but its own).
// indexNowOn reports whether this site takes IndexNow submissions.
func (s *Server) indexNowOn() bool { return s.opt.IndexNow != nil && s.opt.IndexNowFetcher != nil }

func (s *Server) indexNowAllowed(w http.ResponseWriter, r *http.Request) bool {
	if !s.indexNowOn() {
		http.NotFound(w, r)
		return false
	}
	if ok, wait := s.indexLimiter.allow(s.clientKey(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(max(int(math.Ceil(wait.Seconds())), 1)))
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return false
	}
	return true
}

// indexNow answers a parsed submission with the protocol's codes: 200
// accepted, 400 unreadable, 403 key not valid (no key file with that
// content on the host), 422 URLs not of the host, a key not in the
// protocol's form, or a host of no source we hold (we fetch nothing from
// hosts we do not crawl, their key file included).
func (s *Server) indexNow(w http.ResponseWriter, r *http.Request, sub push.Submission, err error) {
	switch {
	case errors.Is(err, push.ErrBadKey):
		http.Error(w, "key not in the IndexNow format (8 to 128 of a-z, A-Z, 0-9, -)", http.StatusUnprocessableEntity)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	own, foreign := sub.SplitURLs()
	if len(foreign) > 0 {
		http.Error(w, fmt.Sprintf("%d URLs are not on %s, e.g. %.200s", len(foreign), sub.Host, foreign[0]), http.StatusUnprocessableEntity)
		return
	}
	file, err := sub.KeyFileURL()
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	held, err := s.opt.IndexNow.IndexNowHolds(r.Context(), sub.Host)
	if err != nil {
		s.plainError(w, r, err)
		return
	}
	if !held {
		http.Error(w, "no source on "+sub.Host+"'s site is crawled here", http.StatusUnprocessableEntity)
		return
	}
	if why := s.checkKey(r.Context(), sub, file); why != "" {
		http.Error(w, "key not valid: "+why, http.StatusForbidden)
		return
	}
	n, err := s.opt.IndexNow.IndexNowDue(r.Context(), s.opt.Now(), own)
	if err != nil {
		s.plainError(w, r, err)
		return
	}
	s.opt.Log.Info("web: indexnow submission", "host", sub.Host, "urls", len(own), "due", n)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "%d URLs accepted\n", n)
}

// checkKey verifies the submission's key: from the cache, or by reading
// the key file (which must still be on the host after redirects and hold
// exactly the key). It says why not, "" when the key is good.
func (s *Server) checkKey(ctx context.Context, sub push.Submission, file string) string {
	now := s.opt.Now()
	if s.keys.ok(sub.Host, sub.Key, file, now) {
		return ""
	}
	tctx, cancel := context.WithTimeout(ctx, proofTimeout)
	defer cancel()
	body, final, err := s.opt.IndexNowFetcher.FetchKeyFile(tctx, file)
	if err != nil {
		return oneLineErr(err)
	}
	if u, err := url.Parse(final); err != nil || !strings.EqualFold(u.Host, sub.Host) {
		return "the key file redirected off " + sub.Host
	}
	if !push.KeyMatches(body, sub.Key) {
		return "the key file does not hold the key"
	}
	s.keys.put(sub.Host, sub.Key, file, now)
	return ""
}
