package storetest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// testDueAgree: every question of one kind — per site (DueSites), per
// source (SiteSources' flags, FeedsToRead, SourcePollsDue,
// SourceCataloguesDue, SourceSitemapsDue, PostsDue of one source) and over
// every source (SourcesToDiscover, SourcesForSitemaps, FeedsDue,
// CataloguesDue, SitemapsDue, PostsDue of all) — finds the same items due,
// over a population of every standing an item can have, at moments
// before, at and after its times; and the soonest retry of each site
// (SiteRetryAt) agrees with the soonest of all (RetriesWaiting); and the
// metrics' work-due gauge (Gauges) counts exactly those items, kind by kind.
func testDueAgree(t *testing.T, s *store.DB) {
	rng := rand.New(rand.NewPCG(33, 1))
	at := func() time.Time { return T0.Add(time.Duration(rng.IntN(5)-2) * time.Hour) } // T0-2h … T0+2h
	var srcs []store.Source
	for i := range 48 {
		// Three sources a site for some sites (www. and blog. spellings).
		host := fmt.Sprintf("d%02d.example", i/3)
		if i%3 == 1 {
			host = "www." + host
		} else if i%3 == 2 {
			host = fmt.Sprintf("blog%d.d%02d.example", i, i/3)
		}
		src, _, err := s.AddSource(bg, "https://"+host+"/", T0.Add(-48*time.Hour))
		must(t, err)
		srcs = append(srcs, src)
		switch rng.IntN(4) {
		case 0: // never discovered
		case 1:
			must(t, s.PostponeDiscovery(bg, src.ID, store.Retry{Attempts: 1, At: at(), Error: "x"}))
		case 2:
			must(t, s.MarkDiscovered(bg, src.ID, T0.Add(-24*time.Hour)))
			if rng.IntN(2) == 0 {
				must(t, s.PostponeSitemaps(bg, src.ID, store.Retry{Attempts: 1, At: at(), Error: "x"}))
			}
		default:
			must(t, s.MarkDiscovered(bg, src.ID, T0.Add(-24*time.Hour)))
			must(t, s.MarkSitemapsChecked(bg, src.ID, T0.Add(-24*time.Hour)))
		}
		for j := range rng.IntN(3) {
			f, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: fmt.Sprintf("https://%s/feed%d", host, j), State: model.FeedActive, Catalogue: model.CatalogueNone})
			must(t, err)
			f.State = []string{model.FeedActive, model.FeedActive, model.FeedError, model.FeedDisallowed}[rng.IntN(4)]
			f.Catalogue = []string{model.CatalogueNone, model.CataloguePending, model.CatalogueDone, model.CatalogueInterrupted}[rng.IntN(4)]
			if rng.IntN(3) > 0 {
				f.Checked = at()
				if rng.IntN(3) > 0 {
					f.LastRead = f.Checked
				}
			}
			f.NextDue = at()
			if rng.IntN(3) == 0 {
				f.Attempts, f.RetryAt = 1+rng.IntN(2), at()
			}
			must(t, s.UpdateFeed(bg, f))
		}
		var parent int64
		for j := range rng.IntN(3) {
			sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: fmt.Sprintf("https://%s/sitemap%d.xml", host, j), Via: model.ViaRobots, ParentID: parent, State: model.SitemapActive})
			must(t, err)
			if j == 0 && rng.IntN(2) == 0 {
				parent = sm.ID // the next are an index's children
			}
			sm.State = []string{model.SitemapActive, model.SitemapActive, model.SitemapError, model.SitemapSkipped}[rng.IntN(4)]
			if rng.IntN(3) > 0 {
				sm.LastRead = at().Add(-24 * time.Hour)
			}
			if rng.IntN(3) == 0 {
				sm.Attempts, sm.RetryAt = 1, at()
			}
			must(t, s.UpdateSitemap(bg, sm))
		}
		var posts []store.NewPost
		for j := range rng.IntN(4) {
			posts = append(posts, store.NewPost{URL: fmt.Sprintf("https://%s/p%d", host, j), SourceID: src.ID, Seen: T0.Add(-48 * time.Hour)})
		}
		if len(posts) > 0 {
			_, err := s.AddPosts(bg, posts)
			must(t, err)
			for _, np := range posts {
				p, err := s.Post(bg, np.URL)
				must(t, err)
				switch rng.IntN(3) {
				case 0:
					must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Fetched: T0.Add(-time.Hour)}))
				case 1:
					must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, Retry: store.Retry{Attempts: 1, At: at(), Error: "x"}}))
				}
			}
		}
	}
	for i := 0; i < len(srcs); i += 7 { // a few paused: nothing of theirs is due
		must(t, s.SiteData().PauseSource(bg, srcs[i].ID, "test", T0))
	}

	const all = 100000
	// SourcesNextDue asked once, before every moment below: a source is
	// due at a moment exactly when its next due time has come by then.
	first := T0.Add(-3 * time.Hour)
	dueTimes := store.DueSettings{FeedInterval: time.Hour, DisallowedRecheck: 2 * time.Hour, SitemapInterval: 24 * time.Hour}
	nextFromFirst, err := s.SourcesNextDue(bg, first, dueTimes)
	must(t, err)
	for _, now := range []time.Time{T0.Add(-3 * time.Hour), T0.Add(-time.Hour), T0, T0.Add(time.Hour), T0.Add(3 * time.Hour)} {
		t.Run(now.Format("15:04"), func(t *testing.T) {
			errBefore, disBefore, smBefore := now.Add(-time.Hour), now.Add(-2*time.Hour), now.Add(-24*time.Hour)
			var discover, sitemapDiscover, polls, catalogues, sitemaps, pages, fresh []int64
			dueSites := map[string]bool{}
			dueSources := map[int64]bool{}
			for _, site := range siteNames(srcs) {
				work, err := s.SiteSources(bg, site, now)
				must(t, err)
				for _, w := range work {
					one, err := s.SourceWork(bg, w.ID, now)
					must(t, err)
					if one != w {
						t.Errorf("SourceWork(%d) = %+v, SiteSources has %+v", w.ID, one, w)
					}
					any := w.DiscoveryDue || w.SitemapDiscoveryDue
					if w.DiscoveryDue {
						discover = append(discover, w.ID)
					}
					if w.SitemapDiscoveryDue {
						sitemapDiscover = append(sitemapDiscover, w.ID)
					}
					fs, err := s.FeedsToRead(bg, w.ID, now)
					must(t, err)
					fresh, any = append(fresh, feedIDs(fs)...), any || len(fs) > 0
					fs, err = s.SourcePollsDue(bg, w.ID, now, errBefore, disBefore)
					must(t, err)
					polls = append(polls, feedIDs(fs)...)
					dueSources[w.ID] = len(fs) > 0
					fs, err = s.SourceCataloguesDue(bg, w.ID, now)
					must(t, err)
					catalogues, any = append(catalogues, feedIDs(fs)...), any || len(fs) > 0
					sms, err := s.SourceSitemapsDue(bg, w.ID, now, smBefore)
					must(t, err)
					for _, sm := range sms {
						sitemaps = append(sitemaps, sm.ID)
					}
					any = any || len(sms) > 0
					ps, err := s.PostsDue(bg, w.ID, now, all)
					must(t, err)
					for _, p := range ps {
						pages = append(pages, p.ID)
					}
					any = any || len(ps) > 0
					if any {
						dueSites[site] = true
					}
					dueSources[w.ID] = dueSources[w.ID] || any
				}
			}

			// A source's next due (sources list) is now exactly when it
			// has work due now, polls included; asked earlier, it has
			// come by now exactly then; a paused source has none.
			next, err := s.SourcesNextDue(bg, now, dueTimes)
			must(t, err)
			for _, src := range srcs {
				at, ok := next[src.ID]
				if due := ok && at.Equal(now); due != dueSources[src.ID] || (ok && at.Before(now)) {
					t.Errorf("source %d: SourcesNextDue at %v = %v, %v; its due work says due %v", src.ID, now, at, ok, dueSources[src.ID])
				}
				at, ok = nextFromFirst[src.ID]
				if due := ok && !at.After(now); due != dueSources[src.ID] {
					t.Errorf("source %d: SourcesNextDue at %v = %v, %v; at %v its due work says due %v", src.ID, first, at, ok, now, dueSources[src.ID])
				}
			}

			q := store.SiteQuery{Now: now, SitemapsBefore: smBefore, Round: "due-agree"}
			ds, err := s.DueSites(bg, q, all)
			must(t, err)
			got := map[string]bool{}
			for _, d := range ds {
				got[d.Site] = true
			}
			agree(t, "DueSites", "the sources' due work", setOf(got), setOf(dueSites))
			n, err := s.CountDueSites(bg, q)
			must(t, err)
			if n != len(dueSites) {
				t.Errorf("CountDueSites = %d, the sources' due work %d", n, len(dueSites))
			}
			toDiscover, err := s.SourcesToDiscover(bg, now, all)
			must(t, err)
			agree(t, "SourcesToDiscover", "SiteSources' DiscoveryDue", sourceIDs(toDiscover), discover)
			forSitemaps, err := s.SourcesForSitemaps(bg, false, now, all)
			must(t, err)
			agree(t, "SourcesForSitemaps", "SiteSources' SitemapDiscoveryDue", sourceIDs(forSitemaps), sitemapDiscover)
			feedsDue, err := s.FeedsDue(bg, now, errBefore, disBefore, all)
			must(t, err)
			agree(t, "FeedsDue", "SourcePollsDue", feedIDs(feedsDue), polls)
			cat, err := s.CataloguesDue(bg, now, all)
			must(t, err)
			agree(t, "CataloguesDue", "SourceCataloguesDue", feedIDs(cat), catalogues)
			sms, err := s.SitemapsDue(bg, now, smBefore, false, all)
			must(t, err)
			var smIDs []int64
			for _, sm := range sms {
				smIDs = append(smIDs, sm.ID)
			}
			agree(t, "SitemapsDue", "SourceSitemapsDue", smIDs, sitemaps)
			ps, err := s.PostsDue(bg, 0, now, all)
			must(t, err)
			var pIDs []int64
			for _, p := range ps {
				pIDs = append(pIDs, p.ID)
			}
			agree(t, "PostsDue of every source", "PostsDue of each", pIDs, pages)
			// The complements: a site's soonest retry and the soonest of all.
			var soonest time.Time
			for _, site := range siteNames(srcs) {
				at, ok, err := s.SiteRetryAt(bg, site, now)
				must(t, err)
				if ok && (soonest.IsZero() || at.Before(soonest)) {
					soonest = at
				}
			}
			w, err := s.RetriesWaiting(bg, now)
			must(t, err)
			if !w.Next.Equal(soonest) {
				t.Errorf("RetriesWaiting's next retry %v, the sites' soonest (SiteRetryAt) %v", w.Next, soonest)
			}
			// The metrics' gauge counts what the questions above found.
			_, gauge, err := s.Gauges(bg, now, dueTimes)
			must(t, err)
			want := map[string]int64{
				store.DueDiscovery:        int64(len(discover)),
				store.DueSitemapDiscovery: int64(len(sitemapDiscover)),
				store.DueFeed:             int64(len(union(fresh, polls))),
				store.DueCatalogue:        int64(len(catalogues)),
				store.DueSitemap:          int64(len(sitemaps)),
				store.DuePage:             int64(len(pages)),
			}
			if !maps.Equal(gauge, want) {
				t.Errorf("Gauges' work due = %v, the due questions found %v", gauge, want)
			}
			if len(discover)+len(polls)+len(catalogues)+len(sitemaps)+len(pages)+len(fresh) == 0 {
				t.Error("nothing due at all: the population tests nothing")
			}
		})
	}
}

// agree fails unless two questions found the same IDs.
func agree[T string | int64](t *testing.T, a, b string, x, y []T) {
	t.Helper()
	x, y = slices.Clone(x), slices.Clone(y)
	slices.Sort(x)
	slices.Sort(y)
	if !slices.Equal(x, y) {
		t.Errorf("%s found %v, %s %v", a, x, b, y)
	}
}

// union is the distinct IDs of a and b.
func union(a, b []int64) []int64 {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

func setOf(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func siteNames(srcs []store.Source) []string {
	var out []string
	for _, s := range srcs {
		if !slices.Contains(out, s.Site) {
			out = append(out, s.Site)
		}
	}
	return out
}

func feedIDs(fs []store.Feed) []int64 {
	var out []int64
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func sourceIDs(ss []store.Source) []int64 {
	var out []int64
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}
