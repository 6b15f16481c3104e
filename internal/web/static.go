package web

import (
	"net/http"

	"corpus.blog/corpusbot/internal/model"
)

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	cov, err := s.opt.Data.Coverage(r.Context())
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "home.html", "corpusbot", "", struct {
		Coverage model.Coverage
		Token    string
	}{cov, s.opt.Settings.ProductToken()})
}

func (s *Server) stylesheet(w http.ResponseWriter, r *http.Request) {
	b, err := assets.ReadFile("static/style.css")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(b)
}

// robotsTxt keeps crawlers (ours included) off the claim pages and forms,
// which hold nothing to index.
func (s *Server) robotsTxt(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("User-agent: *\nDisallow: /claim\nDisallow: /opt-out\nAllow: /\n"))
}
