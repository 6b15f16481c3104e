package demo

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/simweb/farm"
)

const (
	htmlType = "text/html; charset=utf-8"
	xmlType  = "application/xml"
)

// site publishes one blog on its simweb host. Every document is a static
// resource with an ETag and a Last-Modified, compressed when asked, as a
// well-run server would send it; a document whose text did not change keeps
// its validators, so that a conditional request is answered 304.
type site struct {
	blog *Blog
	host *simweb.Host
	mu   sync.Mutex
	docs map[string]*simweb.Resource // by path, or path?query for feed pages
	text map[string]string
}

func newSite(web *simweb.Web, b *Blog) *site {
	s := &site{blog: b, host: web.Host(b.Host), docs: map[string]*simweb.Resource{}, text: map[string]string{}}
	s.serveRobots()
	if b.Feed != farm.FeedNone {
		s.host.Handle(b.FeedPath(), http.HandlerFunc(s.serveFeed))
	}
	return s
}

func (s *site) serveRobots() {
	b := s.blog
	switch b.Robots {
	case farm.Robots404:
		s.host.RobotsStatus(http.StatusNotFound)
	case farm.Robots503:
		s.host.RobotsStatus(http.StatusServiceUnavailable)
	default:
		r := s.host.Robots(b.robotsBody())
		r.Update(b.robotsBody(), start.Add(-90*24*time.Hour))
		if b.Refuse {
			// A firewall in front of the blog: robots.txt gets through, nothing
			// else does, whatever the file allows.
			s.host.Override(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if req.URL.Path == "/robots.txt" {
					r.ServeHTTP(w, req)
					return
				}
				http.Error(w, "403 Forbidden: automated access is not permitted", http.StatusForbidden)
			}))
		}
	}
}

// serveFeed answers the feed and its pages (?paged=N or ?page=N); a page
// past the last is 404, as WordPress answers it. A feed that is not paged
// ignores the query, as most servers do.
func (s *site) serveFeed(w http.ResponseWriter, r *http.Request) {
	key := s.blog.FeedPath()
	if s.blog.Catalogue != farm.CatalogueNone {
		if v := r.URL.Query().Get(feedPageParam(s.blog)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				http.NotFound(w, r)
				return
			}
			if n > 1 {
				key += "?" + feedPageParam(s.blog) + "=" + v
			}
		}
	}
	s.mu.Lock()
	res := s.docs[key]
	s.mu.Unlock()
	if res == nil {
		http.NotFound(w, r)
		return
	}
	res.ServeHTTP(w, r)
}

// publish renders the blog as it now stands and updates the host: changed
// documents get new validators dated mod, vanished ones answer 404.
func (s *site) publish(mod time.Time) {
	b := s.blog
	live := b.live()
	want := map[string]string{}
	types := map[string]string{}
	put := func(path, ct, body string) { want[path], types[path] = body, ct }

	for n := 1; n <= listingPages(len(live)); n++ {
		put(listingPath(n), htmlType, listing(b, live, n))
	}
	put("/about/", htmlType, about(b))
	for i, p := range live {
		var newer, older *Post
		if i > 0 {
			newer = live[i-1]
		}
		if i+1 < len(live) {
			older = live[i+1]
		}
		put(p.Path, htmlType, postPage(b, p, older, newer))
	}
	if b.Feed != farm.FeedNone {
		ct := feedType(b.Feed)
		for n := 1; n <= feedPages(b, len(live)); n++ {
			key := b.FeedPath()
			if n > 1 {
				key += "?" + feedPageParam(b) + "=" + strconv.Itoa(n)
			}
			put(key, ct, feedPage(b, live, n))
		}
	}
	for _, d := range sitemapDocs(b, live) {
		put(d.path, xmlType, d.body)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	for path, body := range want {
		if s.text[path] == body {
			continue
		}
		res, ok := s.docs[path]
		if !ok {
			res = simweb.NewResource(types[path], body).Encode("gzip")
			s.docs[path] = res
			if !isFeedPage(b, path) {
				s.host.Handle(path, res)
			}
		}
		res.Update(body, mod)
		s.text[path] = body
	}
	for path := range s.docs {
		if _, ok := want[path]; ok {
			continue
		}
		delete(s.docs, path)
		delete(s.text, path)
		if !isFeedPage(b, path) {
			s.host.Handle(path, http.NotFoundHandler())
		}
	}
}

// isFeedPage is a document served by serveFeed rather than by its own route.
func isFeedPage(b *Blog, path string) bool {
	fp := b.FeedPath()
	return fp != "" && (path == fp || len(path) > len(fp) && path[:len(fp)+1] == fp+"?")
}
