package farm

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	htmlType = "text/html; charset=utf-8"
	xmlType  = "application/xml"
)

// doc is a document about to be served: its validators are known before
// its body is rendered, so a 304 costs the server no rendering.
type doc struct {
	contentType string
	etag        string
	modified    time.Time
	render      func() string
	// write, if set, is used instead of render: it writes the body to a
	// buffer send takes from writers, which a page of a hundred kilobytes
	// is cheaper built in than a string of its own.
	write func(*docWriter)
}

// serve answers one request to site s.
func (f *Farm) serve(s Site, w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if path == "/robots.txt" {
		switch s.Shape.Robots {
		case Robots404:
			http.NotFound(w, r)
		case Robots503:
			http.Error(w, "503 Service Unavailable", http.StatusServiceUnavailable)
		default:
			body := s.robotsBody()
			send(w, r, doc{"text/plain; charset=utf-8", s.etag("robots"), f.cfg.Start.Add(-90 * 24 * time.Hour),
				func() string { return body }, nil})
		}
		return
	}
	if s.Shape.Refuse {
		// A firewall in front of the blog: robots.txt gets through, nothing else.
		http.Error(w, "403 Forbidden: automated access is not permitted", http.StatusForbidden)
		return
	}
	d, ok := s.route(r)
	if !ok {
		http.NotFound(w, r)
		return
	}
	send(w, r, d)
}

// route finds the document a request asks for.
func (s Site) route(r *http.Request) (doc, bool) {
	path := r.URL.Path
	latest := s.published(s.Posts)
	version := strconv.Itoa(s.Posts) // what a list document shows changes with the posts
	switch {
	case path == "/":
		d := doc{contentType: htmlType, etag: s.etag("/", version), modified: latest, render: s.home}
		if s.farm.cfg.Sizes == SizesReal {
			d.write = s.writeRealHome
		}
		return d, true
	case s.Shape.Feed != FeedNone && path == FeedPath(s.Shape.Feed):
		n := 1
		if s.Shape.Catalogue != CatalogueNone {
			if v := r.URL.Query().Get(pageParam(s.Shape.Catalogue)); v != "" {
				var err error
				if n, err = strconv.Atoi(v); err != nil || n < 1 {
					return doc{}, false
				}
			}
		}
		if n > s.FeedPages() {
			return doc{}, false // past the last page: 404, as WordPress answers
		}
		return doc{feedType(s.Shape.Feed), s.etag(path, strconv.Itoa(n), version),
			s.published(s.Posts - (n-1)*s.farm.cfg.PageSize), nil, func(b *docWriter) { s.writeFeed(b, n) }}, true
	case path == "/sitemap.xml" && (s.Shape.Sitemap == SitemapRobots || s.Shape.Sitemap == SitemapWellKnown):
		return doc{xmlType, s.etag(path, version), latest, func() string { return s.urlset(0) }, nil}, true
	case path == "/sitemap_index.xml" && s.Shape.Sitemap == SitemapIndex:
		return doc{xmlType, s.etag(path, version), latest, s.sitemapIndex, nil}, true
	case strings.HasPrefix(path, "/sitemap-posts-") && s.Shape.Sitemap == SitemapIndex:
		y, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/sitemap-posts-"), ".xml"))
		if err != nil || yearPath(y) != path {
			return doc{}, false
		}
		_, newestIn := s.years()
		t, ok := newestIn[y]
		if !ok {
			return doc{}, false
		}
		return doc{xmlType, s.etag(path, t.Format(time.RFC3339)), t, func() string { return s.urlset(y) }, nil}, true
	}
	// A post: /yyyy/mm/dd/slug-N/ or /private/slug-N/.
	if !strings.HasSuffix(path, "/") {
		return doc{}, false
	}
	dash := strings.LastIndexByte(path, '-')
	if dash < 0 {
		return doc{}, false
	}
	n, err := strconv.Atoi(path[dash+1 : len(path)-1])
	if err != nil || n < 1 || n > s.Posts {
		return doc{}, false
	}
	p := s.Post(n)
	if p.Path != path {
		return doc{}, false
	}
	d := doc{contentType: htmlType, etag: s.etag(path), modified: p.Published, render: func() string { return s.page(p) }}
	if s.farm.cfg.Sizes == SizesReal && !s.Shape.Shell {
		d.write = func(b *docWriter) { s.writeRealPage(b, p) }
	}
	return d, true
}

// etag is a strong ETag for the site's document named by parts.
func (s Site) etag(parts ...string) string {
	var b [24]byte // what fmt's "%x" wrote, quoted, without fmt
	return string(append(strconv.AppendUint(append(b[:0], '"'), hashOf(s.seed, parts...), 16), '"'))
}

// send answers a document, or 304 when the request's validators match it
// (RFC 9110 §13.1: If-None-Match decides when present, else
// If-Modified-Since).
func send(w http.ResponseWriter, r *http.Request, d doc) {
	lm := d.modified.UTC().Format(http.TimeFormat)
	h := w.Header()
	h.Set("ETag", d.etag)
	h.Set("Last-Modified", lm)
	if notModified(r, d.etag, d.modified) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if d.write != nil {
		b := getWriter()
		defer putWriter(b)
		d.write(b)
		h.Set("Content-Type", d.contentType)
		h.Set("Content-Length", strconv.Itoa(b.Len()))
		w.WriteHeader(http.StatusOK)
		// One Write, as with a string body: simweb notes when the body's
		// pieces go out, and ResponseWriter does not keep b.buf.
		_, _ = w.Write(b.buf)
		return
	}
	body := d.render()
	h.Set("Content-Type", d.contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body) // no copy of a document of up to a megabyte
}

func notModified(r *http.Request, etag string, modified time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			if t = strings.TrimSpace(t); t == "*" || t == etag {
				return true
			}
		}
		return false
	}
	v := r.Header.Get("If-Modified-Since")
	if v == "" {
		return false // what ParseTime's error would say, without its three errors
	}
	ims, err := http.ParseTime(v)
	return err == nil && !modified.Truncate(time.Second).After(ims)
}
