package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"
)

//go:embed templates/*.html static/*
var assets embed.FS

// pages holds one template set per page, each the layout plus that page's
// "content" (and the shared partials), so pages cannot overwrite each
// other's blocks.
type pages struct {
	sets map[string]*template.Template
}

func loadPages() (*pages, error) {
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	p := &pages{sets: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimPrefix(n, "templates/")
		if base == "layout.html" || strings.HasPrefix(base, "_") {
			continue
		}
		t, err := template.New(base).Funcs(funcs).ParseFS(assets, "templates/layout.html", "templates/_*.html", n)
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", base, err)
		}
		p.sets[base] = t
	}
	return p, nil
}

var funcs = template.FuncMap{
	"date":     fmtDate,
	"datetime": fmtDateTime,
	"num":      fmtNum,
	"bytes":    fmtBytes,
	"pct": func(part, whole int) string {
		if whole == 0 {
			return "0%"
		}
		return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
	},
}

func fmtDate(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2 Jan 2006")
}

func fmtDateTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}

// fmtNum writes an integer with thousands separators.
func fmtNum(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// page is what the layout reads; Body is the page's own data.
type page struct {
	Title  string
	Active string // the nav entry to mark
	UA     string
	Now    time.Time
	Body   any
}

// render writes a page. Rendering goes to a buffer first, so that a
// template error becomes a clean 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name, title, active string, body any) {
	t, ok := s.pages.sets[name]
	if !ok {
		s.opt.Log.Error("web: no such template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	p := page{Title: title, Active: active, UA: s.opt.Settings.UserAgent, Now: s.opt.Now(), Body: body}
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		s.opt.Log.Error("web: render", "name", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

type errorBody struct {
	Status  int
	Heading string
	Message string
}

// fail answers with an error page, or a JSON error under /api/.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		s.apiError(w, status, msg)
		return
	}
	s.render(w, r, status, "error.html", heading, "", errorBody{Status: status, Heading: heading, Message: msg})
}

// writeJSON answers with v as indented JSON.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		s.opt.Log.Error("web: json", "err", err)
		http.Error(w, `{"error":"internal error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Access-Control-Allow-Origin", "*") // public, read-only data
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func (s *Server) apiError(w http.ResponseWriter, status int, msg string) {
	s.writeJSON(w, status, map[string]any{"error": msg, "status": status})
}
