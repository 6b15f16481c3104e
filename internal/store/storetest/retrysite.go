package storetest

import (
	"errors"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// RetrySite clears a site's guesses and back-off, and nothing of another
// site's: the robots.txt entries of its origins (its subdomains' too),
// its refusal record, the retry times and tries of its feeds, sitemaps,
// posts and discoveries. States and last errors stay. A site with no
// source is not found and changes nothing.
func testRetrySite(t *testing.T, s *store.DB) {
	later := T0.Add(6 * time.Hour)
	retry := store.Retry{Attempts: 2, At: later, Error: "status 503"}
	// Two sources of blog.example, one of other.example, each with a feed,
	// a sitemap and a post held back.
	type held struct {
		src   store.Source
		feed  store.Feed
		sm    store.Sitemap
		postU string
	}
	hold := func(home, feedU, smU, postU string) held {
		src := source(t, s, home)
		f, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: feedU})
		must(t, err)
		f.Attempts, f.RetryAt, f.Error = retry.Attempts, retry.At, retry.Error
		must(t, s.UpdateFeed(bg, f))
		sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: smU, Via: model.ViaWellKnown})
		must(t, err)
		sm.Attempts, sm.RetryAt, sm.Error = retry.Attempts, retry.At, retry.Error
		must(t, s.UpdateSitemap(bg, sm))
		_, err = s.AddPosts(bg, []store.NewPost{{URL: postU, SourceID: src.ID}})
		must(t, err)
		p, err := s.Post(bg, postU)
		must(t, err)
		must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, Fetched: T0, Retry: retry}))
		must(t, s.PostponeDiscovery(bg, src.ID, retry))
		return held{src, f, sm, postU}
	}
	a := hold("https://blog.example/", "https://blog.example/feed", "https://blog.example/sitemap.xml", "https://blog.example/p1")
	b := hold("https://www.blog.example/b/", "https://www.blog.example/b/feed", "https://www.blog.example/b/sitemap.xml", "https://www.blog.example/b/p")
	o := hold("https://other.example/", "https://other.example/feed", "https://other.example/sitemap.xml", "https://other.example/p")
	// A post with nothing held back is not counted.
	_, err := s.AddPosts(bg, []store.NewPost{{URL: "https://blog.example/fresh", SourceID: a.src.ID}})
	must(t, err)

	guess := model.RobotsRecord{State: "unreachable", TTL: 6 * time.Hour, Checked: T0, Expires: later, UnreachableSince: T0}
	origins := []string{"https://blog.example:443", "http://blog.example:80", "https://www.blog.example:443",
		"https://other.example:443", "https://notblog.example:443", "https://blog.example.org:443"}
	for _, origin := range origins {
		g := guess
		g.Origin = origin
		must(t, s.PutRobots(bg, g))
	}
	for _, site := range []string{"blog.example", "other.example"} {
		must(t, s.PutRefusal(bg, site, model.RefusalState{Consecutive403: 3, Refused: true, LastAsked: T0}))
	}

	for _, site := range []string{"blog.example", "other.example"} {
		must(t, s.SaveWait(bg, model.SiteWait{Site: site, Until: later, Next: later}))
	}

	got, err := s.RetrySite(bg, "blog.example")
	must(t, err)
	want := store.SiteRetryCleared{Sources: 2, Robots: 3, Refusal: true, Wait: true, Feeds: 2, Sitemaps: 2, Posts: 2, Discoveries: 2}
	if got != want {
		t.Errorf("cleared %+v, want %+v", got, want)
	}
	for _, origin := range origins {
		_, err := s.Robots(bg, origin)
		gone := errors.Is(err, model.ErrNotFound)
		mine := origin == "https://blog.example:443" || origin == "http://blog.example:80" || origin == "https://www.blog.example:443"
		if gone != mine {
			t.Errorf("robots entry of %s: gone %v, want %v (%v)", origin, gone, mine, err)
		}
	}
	if st, err := s.Refusal(bg, "blog.example"); err != nil || st.Refused {
		t.Errorf("refusal of blog.example: %+v %v", st, err)
	}
	if st, err := s.Refusal(bg, "other.example"); err != nil || !st.Refused {
		t.Errorf("refusal of other.example cleared: %+v %v", st, err)
	}
	waits, err := s.LoadWaits(bg, T0)
	must(t, err)
	if len(waits) != 1 || waits[0].Site != "other.example" {
		t.Errorf("stored waits after clearing blog.example: %+v, want other.example's alone", waits)
	}
	check := func(h held, cleared bool) {
		t.Helper()
		wantAttempts, wantAt := retry.Attempts, retry.At
		if cleared {
			wantAttempts, wantAt = 0, time.Time{}
		}
		feeds, err := s.SourceFeeds(bg, h.src.ID)
		must(t, err)
		if len(feeds) != 1 || feeds[0].Attempts != wantAttempts || !feeds[0].RetryAt.Equal(wantAt) || feeds[0].Error != retry.Error {
			t.Errorf("%s feeds: %+v", h.src.URL, feeds)
		}
		sms, err := s.SourceSitemaps(bg, h.src.ID)
		must(t, err)
		if len(sms) != 1 || sms[0].Attempts != wantAttempts || !sms[0].RetryAt.Equal(wantAt) || sms[0].Error != retry.Error {
			t.Errorf("%s sitemaps: %+v", h.src.URL, sms)
		}
		p, err := s.Post(bg, h.postU)
		must(t, err)
		if p.Attempts != wantAttempts || !p.RetryAt.Equal(wantAt) || !p.Due || p.Error != retry.Error {
			t.Errorf("%s post: attempts %d retry %v due %v error %q", h.postU, p.Attempts, p.RetryAt, p.Due, p.Error)
		}
		src, err := s.Source(bg, h.src.ID)
		must(t, err)
		if src.Attempts != wantAttempts || !src.DiscoverAfter.Equal(wantAt) {
			t.Errorf("%s discovery: attempts %d after %v", h.src.URL, src.Attempts, src.DiscoverAfter)
		}
	}
	check(a, true)
	check(b, true)
	check(o, false)

	// Again: nothing left to clear but the sources counted.
	got, err = s.RetrySite(bg, "blog.example")
	must(t, err)
	if got != (store.SiteRetryCleared{Sources: 2}) {
		t.Errorf("second time: %+v", got)
	}
	if _, err := s.RetrySite(bg, "unknown.example"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("unknown site: %v, want not found", err)
	}
}
