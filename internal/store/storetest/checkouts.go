package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// The frontier's checkouts (the store's DueSites, CheckOutSites,
// CheckInSite): a site with due work is checked out by one worker at a
// time, is not taken up again in a round that finished it, and is free at
// once when given back unfinished or when its checkout lapses.

func siteQuery(round string, after int64) store.SiteQuery {
	return store.SiteQuery{Now: T0, SitemapsBefore: T0.Add(-24 * time.Hour), Round: round, After: after}
}

// dueSiteNames lists every due site not excluded for round, sweeping as the
// frontier does.
func dueSiteNames(t *testing.T, s *store.DB, round string) []string {
	t.Helper()
	var out []string
	var after int64
	for {
		due, err := s.DueSites(bg, siteQuery(round, after), 7)
		must(t, err)
		if len(due) == 0 {
			return out
		}
		for _, d := range due {
			after = d.SourceID
			if !slices.Contains(out, d.Site) {
				out = append(out, d.Site)
			}
		}
	}
}

func testCheckoutsDisjoint(t *testing.T, c CheckoutPair) {
	sources(t, c.A, 40) // s000.example … s039.example, never discovered: due
	n, err := c.A.CountDueSites(bg, siteQuery("", 0))
	must(t, err)
	if n != 40 {
		t.Fatalf("CountDueSites = %d, want 40", n)
	}
	rounds := map[*store.DB]string{c.A: "round-a", c.B: "round-b"}
	// Each worker takes a few due sites at a time and does their work. A
	// site offered to both is checked out by one; the other, checking it
	// out after the first finished, finds its work done (an empty pass, as
	// the crawler's steps find nothing due) and does nothing.
	a, b := drain(t, c, func(s *store.DB) ([]int64, error) {
		for {
			due, err := s.DueSites(bg, siteQuery(rounds[s], 0), 3)
			if err != nil || len(due) == 0 {
				return nil, err
			}
			var want []string
			for _, d := range due {
				want = append(want, d.Site)
			}
			got, err := s.CheckOutSites(bg, rounds[s], want)
			if err != nil {
				return nil, err
			}
			var ids []int64
			for _, co := range got {
				site := co.Site
				srcs, err := s.SiteSources(bg, site, T0)
				if err != nil || len(srcs) != 1 {
					return nil, fmt.Errorf("sources of %s: %v, %v", site, srcs, err)
				}
				if srcs[0].Discovered.IsZero() {
					ids = append(ids, srcs[0].ID)
					if err := s.MarkDiscovered(bg, srcs[0].ID, T0); err != nil {
						return nil, err
					}
					if err := s.MarkSitemapsChecked(bg, srcs[0].ID, T0); err != nil {
						return nil, err
					}
				}
				if err := s.CheckInSite(bg, site, rounds[s], time.Time{}, time.Time{}); err != nil {
					return nil, err
				}
			}
			if len(ids) > 0 {
				return ids, nil
			}
		}
	})
	if len(a)+len(b) != 40 {
		t.Fatalf("checked out %d+%d sites of 40", len(a), len(b))
	}
}

func testCheckoutFinishedInRound(t *testing.T, c CheckoutPair) {
	sources(t, c.A, 3)
	got, err := c.A.CheckOutSites(bg, "r1", []string{"s000.example", "s001.example"})
	must(t, err)
	if len(got) != 2 {
		t.Fatalf("checked out %v", got)
	}
	// Checked out by A: B does not see them, A (its own) does.
	if names := dueSiteNames(t, c.B, "rb"); !slices.Equal(names, []string{"s002.example"}) {
		t.Fatalf("B sees %v due, want only s002", names)
	}
	if held, _ := c.B.DueSitesHeld(bg, siteQuery("rb", 0)); held != 2 {
		t.Fatalf("B counts %d due sites held by others, want 2", held)
	}
	must(t, c.A.CheckInSite(bg, "s000.example", "r1", time.Time{}, time.Time{})) // finished in r1
	must(t, c.A.CheckInSite(bg, "s001.example", "", time.Time{}, time.Time{}))   // given back unfinished
	if names := dueSiteNames(t, c.A, "r1"); !slices.Equal(names, []string{"s001.example", "s002.example"}) {
		t.Fatalf("A's round sees %v due, want s001 (given back) and s002", names)
	}
	if again, _ := c.A.CheckOutSites(bg, "r1", []string{"s000.example"}); len(again) != 0 {
		t.Fatalf("A's round took up a site it finished")
	}
	// Its work is still due (never discovered): the next round, and any
	// other worker's, takes it.
	if names := dueSiteNames(t, c.B, "rb"); len(names) != 3 {
		t.Fatalf("B sees %v due, want all three", names)
	}
	if got, _ := c.A.CheckOutSites(bg, "r2", []string{"s000.example"}); len(got) != 1 {
		t.Fatalf("the next round could not take the site up")
	}
}

func testCheckoutExpiry(t *testing.T, c CheckoutPair) {
	sources(t, c.A, 1)
	if got, _ := c.A.CheckOutSites(bg, "ra", []string{"s000.example"}); len(got) != 1 {
		t.Fatalf("A could not check out")
	}
	// Asking again is harmless: a worker may ask for a site it holds.
	if got, _ := c.A.CheckOutSites(bg, "ra", []string{"s000.example"}); len(got) != 1 {
		t.Fatalf("A could not check out its own site again")
	}
	if got, _ := c.B.CheckOutSites(bg, "rb", []string{"s000.example"}); len(got) != 0 {
		t.Fatalf("B took a site A holds")
	}
	c.Advance(CheckoutTTL / 2)
	if got, _ := c.B.CheckOutSites(bg, "rb", []string{"s000.example"}); len(got) != 0 {
		t.Fatalf("B took a site before its checkout lapsed")
	}
	c.Advance(CheckoutTTL)
	if got, _ := c.B.CheckOutSites(bg, "rb", []string{"s000.example"}); len(got) != 1 {
		t.Fatalf("B could not take a lapsed checkout")
	}
}

// testDueKinds: every kind of due work makes its site due, and a site with
// nothing due (or paused) is not.
func testDueKinds(t *testing.T, c CheckoutPair) {
	s := c.A
	due := func() []string { return dueSiteNames(t, s, "r") }
	done := func(src store.Source) {
		must(t, s.MarkDiscovered(bg, src.ID, T0))
		must(t, s.MarkSitemapsChecked(bg, src.ID, T0))
	}
	fresh := source(t, s, "https://fresh.example/")
	if got := due(); !slices.Equal(got, []string{"fresh.example"}) {
		t.Fatalf("due %v, want the undiscovered source", got)
	}
	must(t, s.PostponeDiscovery(bg, fresh.ID, store.Retry{At: T0.Add(time.Hour)}))
	if got := due(); len(got) != 0 {
		t.Fatalf("due %v after discovery was postponed", got)
	}
	must(t, s.MarkDiscovered(bg, fresh.ID, T0))
	if got := due(); !slices.Equal(got, []string{"fresh.example"}) {
		t.Fatalf("due %v, want the source whose sitemaps were never looked for", got)
	}
	must(t, s.MarkSitemapsChecked(bg, fresh.ID, T0))
	if got := due(); len(got) != 0 {
		t.Fatalf("due %v with nothing to do", got)
	}

	feedSrc := source(t, s, "https://feeds.example/")
	done(feedSrc)
	f, err := s.AddFeed(bg, store.Feed{SourceID: feedSrc.ID, URL: "https://feeds.example/feed"})
	must(t, err)
	if got := due(); !slices.Equal(got, []string{"feeds.example"}) {
		t.Fatalf("due %v, want the source with a feed never read", got)
	}
	if fs, _ := s.FeedsToRead(bg, feedSrc.ID, T0); len(fs) != 1 {
		t.Fatalf("FeedsToRead = %v", fs)
	}
	f.LastRead, f.Checked, f.NextDue = T0, T0, T0.Add(time.Hour)
	must(t, s.UpdateFeed(bg, f))
	if got := due(); !slices.Equal(got, []string{"feeds.example"}) {
		t.Fatalf("due %v, want the source whose catalogue walk is not done", got)
	}
	if fs, _ := s.SourceCataloguesDue(bg, feedSrc.ID, T0); len(fs) != 1 {
		t.Fatalf("SourceCataloguesDue = %v", fs)
	}
	f.Catalogue = model.CatalogueDone
	must(t, s.UpdateFeed(bg, f))
	if got := due(); len(got) != 0 {
		t.Fatalf("due %v once the feed is read and walked (its re-read is PollsDue's)", got)
	}
	if ps, _ := s.PollsDue(bg, T0.Add(2*time.Hour), T0, T0, 10); len(ps) != 1 {
		t.Fatalf("PollsDue = %v, want the feed due for its re-read", ps)
	}

	smSrc := source(t, s, "https://maps.example/")
	done(smSrc)
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: smSrc.ID, URL: "https://maps.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	if got := due(); !slices.Equal(got, []string{"maps.example"}) {
		t.Fatalf("due %v, want the source with a sitemap never read", got)
	}
	if sms, _ := s.SourceSitemapsDue(bg, smSrc.ID, T0, T0.Add(-24*time.Hour)); len(sms) != 1 {
		t.Fatalf("SourceSitemapsDue = %v", sms)
	}
	sm.LastRead = T0
	must(t, s.UpdateSitemap(bg, sm))
	if got := due(); len(got) != 0 {
		t.Fatalf("due %v once the sitemap is read", got)
	}

	postSrc := source(t, s, "https://pages.example/")
	done(postSrc)
	_, err = s.AddPosts(bg, []store.NewPost{{URL: "https://pages.example/p1", SourceID: postSrc.ID}})
	must(t, err)
	if got := due(); !slices.Equal(got, []string{"pages.example"}) {
		t.Fatalf("due %v, want the source owing a page", got)
	}
	other := source(t, s, "https://www.pages.example/") // the same site: one entry
	if got := due(); !slices.Equal(got, []string{"pages.example"}) {
		t.Fatalf("due %v, want the one site of both sources", got)
	}
	srcs, _ := s.SiteSources(bg, "pages.example", T0)
	if len(srcs) != 2 || srcs[0].ID != postSrc.ID || srcs[1].ID != other.ID || srcs[1].Site != "pages.example" {
		t.Fatalf("SiteSources = %+v", srcs)
	}
	if srcs[0].DiscoveryDue || srcs[0].SitemapDiscoveryDue || !srcs[1].DiscoveryDue || srcs[1].SitemapDiscoveryDue {
		t.Fatalf("SiteSources' due steps = %+v, want discovery of the new source only", srcs)
	}
}

// testCheckoutHandsOnTiming: a site's timing goes with its checkout. What
// one worker leaves at check-in (its last request's end, its next permitted
// request) the next worker is handed at checkout, with the site's stored
// wait; a checkout that lapsed in a worker's hands counts as a request
// that ended when it lapsed.
func testCheckoutHandsOnTiming(t *testing.T, c CheckoutPair) {
	sources(t, c.A, 3)
	end, next := T0.Add(-time.Second), T0.Add(5*time.Second)
	one := func(got []store.Checkout, err error) store.Checkout {
		t.Helper()
		must(t, err)
		if len(got) != 1 {
			t.Fatalf("checked out %+v, want one site", got)
		}
		return got[0]
	}
	// A fresh site: nothing known.
	if co := one(c.A.CheckOutSites(bg, "ra", []string{"s000.example"})); !co.LastEnd.IsZero() || !co.Next.IsZero() || co.Wait != (store.SiteWait{}) {
		t.Fatalf("a site never checked out came with timing %+v", co)
	}
	must(t, c.A.CheckInSite(bg, "s000.example", "", end, next))
	co := one(c.B.CheckOutSites(bg, "rb", []string{"s000.example"}))
	if !co.LastEnd.Equal(end) || !co.Next.Equal(next) {
		t.Fatalf("B was handed last end %v, next %v; A left %v, %v", co.LastEnd, co.Next, end, next)
	}
	// A worker that knows nothing of the site does not erase what is known.
	must(t, c.B.CheckInSite(bg, "s000.example", "", time.Time{}, time.Time{}))
	if co := one(c.A.CheckOutSites(bg, "ra2", []string{"s000.example"})); !co.LastEnd.Equal(end) || !co.Next.Equal(next) {
		t.Fatalf("after a check-in without timing: %v, %v; want %v, %v", co.LastEnd, co.Next, end, next)
	}

	// A checks out s001 and dies: its checkout lapses at T0+CheckoutTTL,
	// and B counts the site's gap from then.
	one(c.A.CheckOutSites(bg, "ra", []string{"s001.example"}))
	c.Advance(CheckoutTTL + time.Second)
	co = one(c.B.CheckOutSites(bg, "rb", []string{"s001.example"}))
	if want := T0.Add(CheckoutTTL); !co.LastEnd.Equal(want) {
		t.Fatalf("a lapsed checkout handed last end %v, want its lapse %v", co.LastEnd, want)
	}

	// A stored wait (back-off, Retry-After) comes with the checkout.
	w := model.SiteWait{Site: "s002.example", Gap: 4 * time.Second, End: T0, Until: T0.Add(time.Hour), Next: T0.Add(time.Hour)}
	must(t, c.A.SaveWait(bg, w))
	co = one(c.B.CheckOutSites(bg, "rb", []string{"s002.example"}))
	if co.Wait.Gap != w.Gap || !co.Wait.End.Equal(w.End) || !co.Wait.Until.Equal(w.Until) || !co.Wait.Next.Equal(w.Next) {
		t.Fatalf("checkout's wait %+v, stored %+v", co.Wait, w)
	}
}

// CheckoutTTL is the checkout lifetime RunCheckoutSuite's backends must configure.
const CheckoutTTL = time.Minute

// CheckoutPair are two stores over one database checking work out as different
// workers, with checkouts lasting CheckoutTTL on a shared clock that Advance
// moves forward.
type CheckoutPair struct {
	A, B    *store.DB
	Advance func(time.Duration)
}

// RunCheckoutSuite runs the site-checkout cases: a site checked out by one
// worker (CheckOutSites) is handed to no other until CheckoutTTL passes or
// it is checked in, and every kind of due work makes its site due. (Items
// are not checked out: each belongs to one source of one site.)
func RunCheckoutSuite(t *testing.T, newPair func(t *testing.T) CheckoutPair) {
	tests := []struct {
		name string
		fn   func(*testing.T, CheckoutPair)
	}{
		{"SiteCheckoutsDisjoint", testCheckoutsDisjoint},
		{"SiteCheckoutFinishedInRound", testCheckoutFinishedInRound},
		{"SiteCheckoutExpiry", testCheckoutExpiry},
		{"SiteDueKinds", testDueKinds},
		{"SiteCheckoutHandsOnTiming", testCheckoutHandsOnTiming},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newPair(t)) })
	}
}

// sources adds n sources, s000.example and on, never discovered.
func sources(t *testing.T, s *store.DB, n int) {
	t.Helper()
	for i := range n {
		_, _, err := s.AddSource(bg, fmt.Sprintf("https://s%03d.example/", i), T0)
		must(t, err)
	}
}

// drain runs take on both workers at once until each finds nothing more,
// and fails if one ID was taken by both.
func drain(t *testing.T, c CheckoutPair, take func(*store.DB) ([]int64, error)) (a, b map[int64]bool) {
	t.Helper()
	got := []map[int64]bool{{}, {}}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i, s := range []*store.DB{c.A, c.B} {
		wg.Go(func() {
			for {
				ids, err := take(s)
				if err != nil {
					errs <- err
					return
				}
				if len(ids) == 0 {
					return
				}
				for _, id := range ids {
					got[i][id] = true
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	for id := range got[0] {
		if got[1][id] {
			t.Errorf("site of source %d checked out by both", id)
		}
	}
	return got[0], got[1]
}
