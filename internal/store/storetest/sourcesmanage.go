package storetest

import (
	"errors"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sourcelist"
	"corpus.blog/corpusbot/internal/store"
)

// testSourcesNextDue: each kind of due work gives a source's next due at
// the threshold its condition (due.go) crosses; the earliest wins; a
// paused source has none; a site's stored wait puts it later.
func testSourcesNextDue(t *testing.T, s *store.DB) {
	ds := store.DueSettings{FeedInterval: time.Hour, DisallowedRecheck: 3 * time.Hour, SitemapInterval: 24 * time.Hour}
	now := T0
	discovered := func(u string) store.Source {
		src := source(t, s, u)
		must(t, s.MarkDiscovered(bg, src.ID, T0.Add(-48*time.Hour)))
		must(t, s.MarkSitemapsChecked(bg, src.ID, T0.Add(-48*time.Hour)))
		return src
	}
	feed := func(src store.Source, state string, checked, nextDue, retry time.Time) {
		f, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: src.URL + "feed-" + state, State: model.FeedActive, Catalogue: model.CatalogueDone})
		must(t, err)
		f.State, f.Checked, f.LastRead, f.NextDue, f.RetryAt = state, checked, checked, nextDue, retry
		if !retry.IsZero() {
			f.Attempts = 1
		}
		must(t, s.UpdateFeed(bg, f))
	}
	want := map[int64]time.Time{} // zero: none
	ns := time.Nanosecond

	a := source(t, s, "https://new.example/") // never discovered: due now
	want[a.ID] = now
	b := source(t, s, "https://postponed.example/")
	must(t, s.PostponeDiscovery(bg, b.ID, store.Retry{Attempts: 1, At: T0.Add(2 * time.Hour), Error: "x"}))
	want[b.ID] = T0.Add(2 * time.Hour)
	c := discovered("https://active.example/")
	feed(c, model.FeedActive, T0.Add(-time.Hour), T0.Add(5*time.Hour), time.Time{})
	want[c.ID] = T0.Add(5 * time.Hour)
	d := discovered("https://erroring.example/")
	feed(d, model.FeedError, T0.Add(-30*time.Minute), time.Time{}, time.Time{})
	want[d.ID] = T0.Add(30*time.Minute + ns) // checked < now - FEED_INTERVAL
	e := discovered("https://disallowed.example/")
	feed(e, model.FeedDisallowed, T0.Add(-time.Hour), time.Time{}, time.Time{})
	want[e.ID] = T0.Add(2*time.Hour + ns) // checked < now - DISALLOWED_RECHECK
	f := discovered("https://retrying.example/")
	feed(f, model.FeedActive, T0.Add(-time.Hour), T0.Add(time.Hour), T0.Add(4*time.Hour)) // its schedule waits for its retry
	want[f.ID] = T0.Add(4 * time.Hour)
	g := discovered("https://sitemap.example/")
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: g.ID, URL: g.URL + "sitemap.xml", Via: model.ViaRobots, State: model.SitemapActive})
	must(t, err)
	sm.LastRead = T0.Add(-20 * time.Hour)
	must(t, s.UpdateSitemap(bg, sm))
	feed(g, model.FeedActive, T0, T0.Add(10*time.Hour), time.Time{})
	want[g.ID] = T0.Add(4*time.Hour + ns) // the sitemap, before the feed
	h := discovered("https://page.example/")
	_, err = s.AddPosts(bg, []store.NewPost{{URL: h.URL + "p1", SourceID: h.ID, Seen: T0}, {URL: h.URL + "p2", SourceID: h.ID, Seen: T0}})
	must(t, err)
	for i, u := range []string{h.URL + "p1", h.URL + "p2"} {
		p, err := s.Post(bg, u)
		must(t, err)
		must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, Retry: store.Retry{Attempts: 1, At: T0.Add(time.Duration(3-i) * time.Hour), Error: "x"}}))
	}
	want[h.ID] = T0.Add(2 * time.Hour) // the sooner of its pages' retries
	i := discovered("https://paused.example/")
	feed(i, model.FeedActive, T0.Add(-time.Hour), T0.Add(time.Hour), time.Time{})
	must(t, s.SiteData().PauseSource(bg, i.ID, model.PausedByOperator, T0))
	j := discovered("https://done.example/") // nothing that comes due by itself
	want[i.ID], want[j.ID] = time.Time{}, time.Time{}
	k := discovered("https://waiting.example/")
	feed(k, model.FeedActive, T0.Add(-time.Hour), T0.Add(-time.Minute), time.Time{})
	must(t, s.SaveWait(bg, model.SiteWait{Site: "waiting.example", Gap: time.Hour, End: T0, Next: T0.Add(time.Hour)}))
	want[k.ID] = T0.Add(time.Hour) // due, but the site's next permitted request is later

	got, err := s.SourcesNextDue(bg, now, ds)
	must(t, err)
	for id, w := range want {
		g, ok := got[id]
		if ok != !w.IsZero() || !g.Equal(w) {
			t.Errorf("source %d: next due %v (%v), want %v", id, g, ok, w)
		}
	}
	list, err := s.ListSources(bg, now, ds)
	must(t, err)
	if len(list) != len(want) {
		t.Fatalf("ListSources: %d sources, want %d", len(list), len(want))
	}
	for _, l := range list {
		if !l.NextDue.Equal(want[l.ID]) {
			t.Errorf("ListSources %s: next due %v, want %v", l.URL, l.NextDue, want[l.ID])
		}
	}
}

// testRemoveSources: selectors find sources by identity and by site;
// one that finds none changes nothing; a removal keeps the posts, pauses
// the source and shows it removed, and adding it again brings it back as
// it was; a purge deletes the source and what is its alone, and keeps what
// its site shares.
func testRemoveSources(t *testing.T, s *store.DB) {
	sel := func(args ...string) []sourcelist.Selector {
		var out []sourcelist.Selector
		for _, a := range args {
			x, err := sourcelist.ParseSelector(a)
			must(t, err)
			out = append(out, x)
		}
		return out
	}
	a := source(t, s, "https://a.example/")
	b1 := source(t, s, "https://one.b.example/")
	b2 := source(t, s, "https://two.b.example/")
	keep := source(t, s, "https://keep.example/")
	for _, src := range []store.Source{a, b1, b2, keep} {
		must(t, s.MarkDiscovered(bg, src.ID, T0))
		fd, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: src.URL + "feed", State: model.FeedActive, Catalogue: model.CatalogueNone, Title: "Feed of " + src.URL})
		must(t, err)
		fd.Checked, fd.LastRead, fd.NextDue, fd.Title = T0, T0, T0.Add(time.Hour), "Feed of "+src.URL
		must(t, s.UpdateFeed(bg, fd))
		sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: src.URL + "sitemap.xml", Via: model.ViaRobots, State: model.SitemapActive})
		must(t, err)
		_, err = s.AddPosts(bg, []store.NewPost{{URL: src.URL + "1", SourceID: src.ID, Seen: T0}, {URL: src.URL + "2", SourceID: src.ID, Seen: T0}})
		must(t, err)
		p, err := s.Post(bg, src.URL+"1")
		must(t, err)
		must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Fetched: T0, Text: "text",
			Citations: []string{"https://cited.example/x"}}))
		_ = sm
	}

	got, err := s.SelectSources(bg, sel("HTTPS://A.example", "b.example", "https://one.b.example/"))
	must(t, err)
	if len(got) != 3 || got[0].ID != a.ID || got[1].ID != b1.ID || got[2].ID != b2.ID {
		t.Errorf("SelectSources = %+v, want a, one.b, two.b once each", got)
	}
	for _, bad := range [][]string{{"a.example", "nothing.example"}, {"https://a.example/blog/"}} {
		_, err := s.RemoveSources(bg, sel(bad...), false, T0)
		if !errors.Is(err, model.ErrNotFound) {
			t.Errorf("RemoveSources(%v) = %v, want not found", bad, err)
		}
	}
	if st := states(t, s); st[a.ID] == model.StateRemoved {
		t.Fatal("a removal that named a missing source changed something")
	}

	// Removed, posts kept.
	res, err := s.RemoveSources(bg, sel("https://a.example/"), false, T0)
	must(t, err)
	if len(res) != 1 || res[0].URL != a.URL || res[0].Posts != 2 || res[0].Purge {
		t.Errorf("RemoveSources(a) = %+v", res)
	}
	if st := states(t, s); st[a.ID] != model.StateRemoved {
		t.Errorf("state of a removed source: %q", st[a.ID])
	}
	if work, err := s.SiteSources(bg, "a.example", T0.Add(48*time.Hour)); err != nil || len(work) != 0 {
		t.Errorf("a removed source still has work: %+v, %v", work, err)
	}
	if n, _ := s.SourcesNextDue(bg, T0, store.DueSettings{}); !n[a.ID].IsZero() {
		t.Errorf("a removed source has a next due: %v", n[a.ID])
	}
	if p, err := s.Post(bg, a.URL+"1"); err != nil || p.Text != "text" {
		t.Errorf("a removed source's post: %+v, %v", p, err)
	}
	// The owner's resume does not bring it back; adding it again does.
	must(t, s.SiteData().ResumeSite(bg, "a.example"))
	must(t, s.SiteData().ResumeSource(bg, a.ID))
	if st := states(t, s); st[a.ID] != model.StateRemoved {
		t.Errorf("resumed by the owner, a removed source is %q", st[a.ID])
	}
	back, isNew, err := s.AddSource(bg, "https://a.example", T0)
	must(t, err)
	if back.ID != a.ID || !isNew {
		t.Errorf("added again: %+v new %v, want source %d, new", back, isNew, a.ID)
	}
	if st := states(t, s); st[a.ID] != model.StateActive {
		t.Errorf("added again, state %q", st[a.ID])
	}
	// An owner's pause outlives a removal and a new add.
	must(t, s.SiteData().PauseSource(bg, a.ID, "claim", T0))
	_, err = s.RemoveSources(bg, sel("a.example"), false, T0)
	must(t, err)
	_, _, err = s.AddSource(bg, "https://a.example/", T0)
	must(t, err)
	if st := states(t, s); st[a.ID] != model.StatePaused {
		t.Errorf("paused by its owner, removed and added again: %q", st[a.ID])
	}

	// Purged: a site's two sources, with everything of theirs.
	res, err = s.RemoveSources(bg, sel("b.example"), true, T0)
	must(t, err)
	if len(res) != 2 || res[0].Posts != 2 || !res[0].Purge || res[1].Posts != 2 {
		t.Errorf("RemoveSources(b.example, purge) = %+v", res)
	}
	for _, u := range []string{b1.URL + "1", b2.URL + "2"} {
		if _, err := s.Post(bg, u); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("purged post %s: %v", u, err)
		}
	}
	if _, err := s.SelectSources(bg, sel("b.example")); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("purged sources still found: %v", err)
	}
	if fs, err := s.SourceFeeds(bg, b1.ID); err != nil || len(fs) != 0 {
		t.Errorf("purged source's feeds: %v, %v", fs, err)
	}
	if p, err := s.Post(bg, keep.URL+"1"); err != nil || p.Text != "text" {
		t.Errorf("another source's post after a purge: %+v, %v", p, err)
	}
	// Added again after a purge: a new source, from the start.
	nb, isNew, err := s.AddSource(bg, "https://one.b.example/", T0)
	must(t, err)
	if !isNew || nb.ID == b1.ID || !nb.Discovered.IsZero() {
		t.Errorf("added after a purge: %+v, new %v", nb, isNew)
	}
	list, err := s.ListSources(bg, T0, store.DueSettings{})
	must(t, err)
	for _, l := range list {
		if l.ID == keep.ID && (l.PostsIndexed != 1 || !l.LastRead.Equal(T0) || l.Feed != keep.URL+"feed" || l.Title != "Feed of "+keep.URL || l.State != model.StateActive) {
			t.Errorf("ListSources, keep: %+v", l)
		}
	}
}

func states(t *testing.T, s *store.DB) map[int64]string {
	t.Helper()
	st, err := s.SiteData().SourceStates(bg)
	must(t, err)
	return st
}
