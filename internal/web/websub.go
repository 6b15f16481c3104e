package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// WebSubReceiver is the crawler's side of the WebSub callback
// (/websub/callback/{id}); crawl.Crawler implements it. nil in Options:
// the callback answers 404 and no hub can reach us.
type WebSubReceiver interface {
	// WebSubIntent judges a verification of intent (or a denial) on
	// callback id, the hub's query as sent: ok false is answered 404,
	// ok true 200 with the challenge as the body.
	WebSubIntent(ctx context.Context, id string, q url.Values) (challenge string, ok bool, err error)
	// WebSubDeliver takes a delivery whose body (at most BODY_MAX) the
	// site read and says the status to answer.
	WebSubDeliver(ctx context.Context, id string, h http.Header, body []byte) (status int, err error)
}

// maxChallenge bounds the challenge echoed: hubs send a few dozen
// characters, and the callback is no mirror for arbitrary text.
const maxChallenge = 1024

// ownsBodyLimit reports whether a POST path reads its body under its own
// cap instead of the forms' maxForm: a delivery is a whole feed, an
// IndexNow submission up to 10,000 URLs.
func ownsBodyLimit(path string) bool {
	return strings.HasPrefix(path, "/websub/callback/") || path == "/indexnow"
}

// CallbackBase is the base URL hubs reach the callback under (Options.PublicURL):
// crawl.Crawler.CallbackBase.
func (s *Server) CallbackBase() string { return strings.TrimRight(s.opt.PublicURL, "/") }

func (s *Server) websubIntent(w http.ResponseWriter, r *http.Request) {
	if s.opt.WebSub == nil {
		http.NotFound(w, r)
		return
	}
	challenge, ok, err := s.opt.WebSub.WebSubIntent(r.Context(), r.PathValue("id"), r.URL.Query())
	if err != nil {
		s.plainError(w, r, err)
		return
	}
	if !ok || len(challenge) > maxChallenge {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, challenge)
}

func (s *Server) websubDeliver(w http.ResponseWriter, r *http.Request) {
	if s.opt.WebSub == nil {
		http.NotFound(w, r)
		return
	}
	limit := s.opt.Settings.BodyMax
	if limit <= 0 {
		limit = 5 * 1000 * 1000
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "delivery exceeds BODY_MAX", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "delivery not read", http.StatusBadRequest)
		return
	}
	status, err := s.opt.WebSub.WebSubDeliver(r.Context(), r.PathValue("id"), r.Header, body)
	if err != nil {
		s.opt.Log.Error("web: websub delivery not stored", "err", err)
	}
	w.WriteHeader(status)
}

// plainError answers 500 to a machine client.
func (s *Server) plainError(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, context.Canceled) {
		s.opt.Log.Error("web: request failed", "path", safePath(r), "err", err)
	}
	http.Error(w, "internal error", http.StatusInternalServerError)
}
