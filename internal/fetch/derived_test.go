package fetch_test

import (
	"net/url"
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestResultNamesSitesAndOrigin: a Result names the requested URL's site
// and origin and the final URL's site, as the attempt derived them, on
// every path (a hop within the site, into another site, an error on the
// way, a robots.txt read, a URL that does not parse); each Record names
// its own hop's site and origin.
func TestResultNamesSitesAndOrigin(t *testing.T) {
	r := newRig(t, false, nil)
	old := r.web.Host("www.old.example")
	old.Robots("User-agent: *\nAllow: /\n")
	old.Handle("/here", simweb.Redirect(301, "http://blog.old.example/post"))
	old.Handle("/away", simweb.Redirect(308, "http://new.example/feed.xml"))
	old.Handle("/loop", simweb.Redirect(302, "/loop2"))
	old.Handle("/loop2", simweb.Redirect(302, "/loop"))
	blog := r.web.Host("blog.old.example")
	blog.Robots("User-agent: *\nAllow: /\n")
	blog.Put("/post", "text/html", simweb.HTMLPage)
	nw := r.web.Host("new.example")
	nw.Robots("User-agent: *\nAllow: /\n")
	nw.Put("/feed.xml", "application/atom+xml", `<feed xmlns="http://www.w3.org/2005/Atom"/>`)

	tests := []struct {
		name, url               string
		purpose                 model.Purpose
		site, origin, finalSite string
	}{
		{"within the site", "http://www.old.example/here", model.PurposePage, "old.example", "http://www.old.example:80", "old.example"},
		{"into another site", "http://www.old.example/away", model.PurposeFeed, "old.example", "http://www.old.example:80", "new.example"},
		{"a loop", "http://www.old.example/loop", model.PurposePage, "old.example", "http://www.old.example:80", "old.example"},
		{"robots.txt", "http://new.example/", model.PurposeRobots, "new.example", "http://new.example:80", "new.example"},
		{"with a port and credentials", "http://user:pw@NEW.example:80/feed.xml", model.PurposeFeed, "new.example", "http://new.example:80", "new.example"},
		{"not a URL", "ftp://new.example/", model.PurposePage, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := r.get(tc.url, tc.purpose)
			if res.Site != tc.site || res.Origin != tc.origin || res.FinalSite != tc.finalSite {
				t.Errorf("site %q, origin %q, final site %q (final URL %s); want %q, %q, %q",
					res.Site, res.Origin, res.FinalSite, res.FinalURL, tc.site, tc.origin, tc.finalSite)
			}
		})
	}
	for _, rec := range r.records() {
		if want := originOf(t, rec.URL); rec.Origin != want {
			t.Errorf("record of %s: origin %q, want %q", rec.URL, rec.Origin, want)
		}
	}
}

// originOf is model.OriginOf of raw, which must parse.
func originOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("record URL %q: %v", raw, err)
	}
	return model.OriginOf(u)
}
