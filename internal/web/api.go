package web

import (
	"errors"
	"net/http"
	"net/url"

	"corpus.blog/corpusbot/internal/model"
)

// The JSON API serves the same data as the pages, never more: the types
// it encodes have no field for post text.

func (s *Server) apiDocs(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "api.html", "API", "api", struct{ Max, Default int }{maxPageSize, defaultPageSize})
}

type apiSetting struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Default string `json:"default"`
	Help    string `json:"help"`
}

type apiRule struct {
	Group    string   `json:"group"`
	Text     string   `json:"text"`
	Settings []string `json:"settings,omitempty"`
}

func (s *Server) apiCrawler(w http.ResponseWriter, r *http.Request) {
	b := s.crawlerBody()
	out := struct {
		UserAgent     string       `json:"user_agent"`
		ProductToken  string       `json:"product_token"`
		CrawlerURL    string       `json:"crawler_url,omitempty"`
		VerifyDomains []string     `json:"verify_domains"`
		IPs           string       `json:"ips"`
		Rules         []apiRule    `json:"rules"`
		Settings      []apiSetting `json:"settings"`
	}{UserAgent: b.UA, ProductToken: b.Token, CrawlerURL: b.CrawlerURL, VerifyDomains: b.VerifyDomains, IPs: "/crawler/ips.json"}
	if out.VerifyDomains == nil {
		out.VerifyDomains = []string{}
	}
	for _, g := range b.Rules {
		for _, ru := range g.Rules {
			out.Rules = append(out.Rules, apiRule{Group: g.Title, Text: ru.Text, Settings: ru.Settings})
		}
	}
	for _, e := range b.Settings {
		out.Settings = append(out.Settings, apiSetting{Name: e.Name, Value: e.Value, Default: e.Default, Help: e.Help})
	}
	s.writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiCoverage(w http.ResponseWriter, r *http.Request) {
	d, err := s.coverageData(r.Context())
	if err != nil {
		s.opt.Log.Error("web: api coverage", "err", err)
		s.apiError(w, http.StatusInternalServerError, "internal error")
		return
	}
	s.writeJSON(w, http.StatusOK, struct {
		coverageData
		Delivery *deliveryView `json:"delivery,omitempty"` // which sources are pushed, polled, or both
	}{d, s.delivery(r.Context())})
}

func (s *Server) apiSources(w http.ResponseWriter, r *http.Request) {
	q, err := sitesQuery(r)
	if err != nil {
		s.apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	pg, err := s.opt.Data.Sites(r.Context(), q)
	if err != nil {
		s.opt.Log.Error("web: api sources", "err", err)
		s.apiError(w, http.StatusInternalServerError, "internal error")
		return
	}
	out := struct {
		model.SitePage
		NextURL string `json:"next_url,omitempty"`
	}{SitePage: pg}
	if pg.Next != "" {
		out.NextURL = listURL("/api/sources", pg.Next, q)
	}
	s.writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiSource(w http.ResponseWriter, r *http.Request) {
	site, canonical, err := siteParam(r)
	if err != nil {
		s.apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !canonical {
		http.Redirect(w, r, "/api/sources/"+url.PathEscape(site), http.StatusMovedPermanently)
		return
	}
	d, err := s.opt.Data.Site(r.Context(), site, s.opt.Now())
	if errors.Is(err, model.ErrNotFound) {
		s.apiError(w, http.StatusNotFound, "no such site: "+site)
		return
	}
	if err != nil {
		s.opt.Log.Error("web: api source", "err", err)
		s.apiError(w, http.StatusInternalServerError, "internal error")
		return
	}
	s.writeJSON(w, http.StatusOK, d)
}
