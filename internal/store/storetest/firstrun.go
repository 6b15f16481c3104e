package storetest

import (
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// RetriesWaiting counts the sources with an item waiting for a retry (a
// discovery, a feed, a sitemap, a post), names the soonest retry and its
// item's last failure, and leaves out retries already due, paused sources
// and sources with nothing waiting.
func testRetriesWaiting(t *testing.T, s *store.DB) {
	w, err := s.RetriesWaiting(bg, T0)
	must(t, err)
	if w != (store.RetriesWaiting{}) {
		t.Fatalf("empty store: %+v", w)
	}
	down := source(t, s, "https://down.example/")
	must(t, s.PostponeDiscovery(bg, down.ID, store.Retry{Attempts: 1, At: T0.Add(2 * time.Hour), Error: "robots.txt unreachable: DNS failure"}))
	busy := source(t, s, "https://busy.example/")
	must(t, s.MarkDiscovered(bg, busy.ID, T0))
	f, err := s.AddFeed(bg, store.Feed{SourceID: busy.ID, URL: "https://busy.example/feed"})
	must(t, err)
	f.Attempts, f.RetryAt, f.Error = 1, T0.Add(30*time.Minute), "status 503"
	must(t, s.UpdateFeed(bg, f))
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: busy.ID, URL: "https://busy.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	sm.Attempts, sm.RetryAt, sm.Error = 1, T0.Add(time.Hour), "timeout"
	must(t, s.UpdateSitemap(bg, sm))
	due := source(t, s, "https://due.example/") // its retry has come: due, not waiting
	must(t, s.PostponeDiscovery(bg, due.ID, store.Retry{Attempts: 1, At: T0.Add(-time.Minute), Error: "homepage: timeout"}))
	source(t, s, "https://idle.example/")

	w, err = s.RetriesWaiting(bg, T0)
	must(t, err)
	want := store.RetriesWaiting{Sources: 4, Waiting: 2, Next: T0.Add(30 * time.Minute), Error: "status 503"}
	if !w.Next.Equal(want.Next) || w.Sources != want.Sources || w.Waiting != want.Waiting || w.Error != want.Error {
		t.Errorf("got %+v, want %+v", w, want)
	}
	// An hour later the feed's and sitemap's retries have come.
	w, err = s.RetriesWaiting(bg, T0.Add(time.Hour))
	must(t, err)
	if w.Waiting != 1 || !w.Next.Equal(T0.Add(2*time.Hour)) || w.Error != "robots.txt unreachable: DNS failure" {
		t.Errorf("an hour later: %+v", w)
	}
}

// A sitemap's note is stored with it, read back by every query that
// lists sitemaps, replaced by the next update, and shown on the public
// site's page of its source.
func testSitemapNote(t *testing.T, s *store.DB) {
	src := source(t, s, "https://big.example/")
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://big.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	if sm.Note != "" {
		t.Fatalf("a new sitemap has a note: %q", sm.Note)
	}
	const note = "cut at the protocol's limit (more than 50000 entries): the first 50000 entries kept"
	sm.LastRead, sm.Note = T0, note
	must(t, s.UpdateSitemap(bg, sm))
	got, err := s.SourceSitemaps(bg, src.ID)
	must(t, err)
	if len(got) != 1 || got[0].Note != note || got[0].State != "active" {
		t.Fatalf("read back: %+v", got)
	}
	d, err := s.SiteData().Site(bg, "big.example", T0)
	must(t, err)
	if len(d.Sources) != 1 || len(d.Sources[0].Sitemaps) != 1 || d.Sources[0].Sitemaps[0].Note != note {
		t.Errorf("public site: %+v", d.Sources)
	}
	sm.Note = ""
	must(t, s.UpdateSitemap(bg, sm))
	got, err = s.SourceSitemaps(bg, src.ID)
	must(t, err)
	if got[0].Note != "" {
		t.Errorf("a whole read keeps the note: %q", got[0].Note)
	}
}

// A source's discovery failure is on the public site's page of its
// source, in the form the site may show (PublicSourceError).
func testSourceErrorPublic(t *testing.T, s *store.DB) {
	src := source(t, s, "https://down.example/")
	must(t, s.PostponeDiscovery(bg, src.ID, store.Retry{Attempts: 1, At: T0.Add(time.Hour), Error: "robots.txt unreachable: DNS failure"}))
	d, err := s.SiteData().Site(bg, "down.example", T0)
	must(t, err)
	if len(d.Sources) != 1 || d.Sources[0].Error != "robots.txt unreachable: DNS failure" {
		t.Errorf("public site: %+v", d.Sources)
	}
	must(t, s.MarkDiscovered(bg, src.ID, T0))
	d, err = s.SiteData().Site(bg, "down.example", T0)
	must(t, err)
	if d.Sources[0].Error != "" {
		t.Errorf("a discovered source keeps its error on the site: %q", d.Sources[0].Error)
	}
}
