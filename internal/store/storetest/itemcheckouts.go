package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// CheckoutTTL is the checkout lifetime RunCheckoutSuite's backends must configure.
const CheckoutTTL = time.Minute

// CheckoutPair are two stores over one database checking work out as different
// workers, with checkouts lasting CheckoutTTL on a shared clock that Advance
// moves forward.
type CheckoutPair struct {
	A, B    *store.DB
	Advance func(time.Duration)
}

// RunCheckoutSuite runs the work-checkout cases: what every batch (PostsDue,
// FeedsDue, CataloguesDue, SourcesToDiscover, SourcesForSitemaps,
// SitemapsDue) returns is checked out by the asking worker until CheckoutTTL
// passes or the work is stored.
func RunCheckoutSuite(t *testing.T, newPair func(t *testing.T) CheckoutPair) {
	tests := []struct {
		name string
		fn   func(*testing.T, CheckoutPair)
	}{
		{"DisjointPosts", testCheckoutDisjointPosts},
		{"DisjointFeeds", testCheckoutDisjointFeeds},
		{"Expiry", testItemCheckoutExpiry},
		{"FinishReleases", testCheckoutFinishReleases},
		{"DisjointDiscovery", testCheckoutDisjointDiscovery},
		{"DisjointSitemapDiscovery", testCheckoutDisjointSitemapDiscovery},
		{"DisjointSitemaps", testCheckoutDisjointSitemaps},
		{"CatalogueHeldDuringWalk", testCheckoutCatalogueWalk},
		{"SiteCheckoutsDisjoint", testCheckoutsDisjoint},
		{"SiteCheckoutFinishedInRound", testCheckoutFinishedInRound},
		{"SiteCheckoutExpiry", testCheckoutExpiry},
		{"SiteDueKinds", testDueKinds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newPair(t)) })
	}
}

func duePosts(t *testing.T, s *store.DB, n int) store.Source {
	t.Helper()
	src := source(t, s, "https://c.example/")
	var ps []store.NewPost
	for i := range n {
		ps = append(ps, store.NewPost{URL: fmt.Sprintf("https://c.example/p%03d", i), SourceID: src.ID, Lastmod: T0})
	}
	_, err := s.AddPosts(bg, ps)
	must(t, err)
	return src
}

// drain has both workers take batches at once, finishing each (take
// stores the work done), until neither gets any, and checks no item went
// to both.
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
			t.Errorf("item %d claimed by both", id)
		}
	}
	return got[0], got[1]
}

func testCheckoutDisjointPosts(t *testing.T, c CheckoutPair) {
	duePosts(t, c.A, 200)
	a, b := drain(t, c, func(s *store.DB) ([]int64, error) {
		ps, err := s.PostsDue(bg, 0, T0, 7)
		var ids []int64
		for _, p := range ps {
			ids = append(ids, p.ID)
			if err == nil {
				err = s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "x", TextFrom: model.TextFromPage, Fetched: T0})
			}
		}
		return ids, err
	})
	if len(a)+len(b) != 200 {
		t.Fatalf("claimed %d+%d of 200", len(a), len(b))
	}
}

func testCheckoutDisjointFeeds(t *testing.T, c CheckoutPair) {
	src := source(t, c.A, "https://c.example/")
	for i := range 50 {
		_, err := c.A.AddFeed(bg, store.Feed{SourceID: src.ID, URL: fmt.Sprintf("https://c.example/feed%d", i)})
		must(t, err)
	}
	a, b := drain(t, c, func(s *store.DB) ([]int64, error) {
		fs, err := s.FeedsDue(bg, T0, T0, T0, 3)
		var ids []int64
		for _, f := range fs {
			ids = append(ids, f.ID)
			f.LastRead, f.Checked, f.NextDue = T0, T0, T0.Add(time.Hour)
			if err == nil {
				err = s.UpdateFeed(bg, f)
			}
		}
		return ids, err
	})
	if len(a)+len(b) != 50 {
		t.Fatalf("claimed %d+%d of 50", len(a), len(b))
	}
}

func testItemCheckoutExpiry(t *testing.T, c CheckoutPair) {
	duePosts(t, c.A, 10)
	ps, err := c.A.PostsDue(bg, 0, T0, 100)
	must(t, err)
	if len(ps) != 10 {
		t.Fatalf("A claimed %d", len(ps))
	}
	// The worker itself may ask again (a retry after a cancelled run).
	if again, _ := c.A.PostsDue(bg, 0, T0, 100); len(again) != 10 {
		t.Fatalf("A again: %d", len(again))
	}
	if got, _ := c.B.PostsDue(bg, 0, T0, 100); len(got) != 0 {
		t.Fatalf("B took %d claimed posts", len(got))
	}
	c.Advance(CheckoutTTL / 2)
	if got, _ := c.B.PostsDue(bg, ps[0].SourceID, T0, 100); len(got) != 0 {
		t.Fatalf("B took %d posts before the claims lapsed", len(got))
	}
	c.Advance(CheckoutTTL)
	got, err := c.B.PostsDue(bg, 0, T0, 100)
	must(t, err)
	if len(got) != 10 {
		t.Fatalf("B took %d lapsed posts, want 10", len(got))
	}
	if again, _ := c.A.PostsDue(bg, 0, T0, 100); len(again) != 0 {
		t.Fatalf("A re-took %d posts B holds", len(again))
	}
}

func testCheckoutFinishReleases(t *testing.T, c CheckoutPair) {
	src := duePosts(t, c.A, 1)
	ps, err := c.A.PostsDue(bg, 0, T0, 10)
	must(t, err)
	if len(ps) != 1 {
		t.Fatalf("A claimed %d", len(ps))
	}
	must(t, c.A.SavePage(bg, store.PageResult{PostID: ps[0].ID, State: model.PostIndexed, Text: "x", TextFrom: model.TextFromPage, Fetched: T0}))
	// Modified again: due, and B may take it at once.
	_, err = c.A.AddPosts(bg, []store.NewPost{{URL: ps[0].URL, SourceID: src.ID, Lastmod: T0.Add(time.Hour)}})
	must(t, err)
	if got, _ := c.B.PostsDue(bg, 0, T0, 10); len(got) != 1 {
		t.Fatalf("B took %d posts after A saved, want 1", len(got))
	}

	f, err := c.A.AddFeed(bg, store.Feed{SourceID: src.ID, URL: "https://c.example/feed"})
	must(t, err)
	fs, err := c.A.FeedsDue(bg, T0, T0, T0, 10)
	must(t, err)
	if len(fs) != 1 {
		t.Fatalf("A claimed %d feeds", len(fs))
	}
	if got, _ := c.B.FeedsDue(bg, T0, T0, T0, 10); len(got) != 0 {
		t.Fatalf("B took a claimed feed")
	}
	// Stored without progress (still due): released to anyone.
	must(t, c.A.UpdateFeed(bg, f))
	if got, _ := c.B.FeedsDue(bg, T0, T0, T0, 10); len(got) != 1 {
		t.Fatalf("B took %d feeds after A stored it, want 1", len(got))
	}
}

func sources(t *testing.T, s *store.DB, n int) {
	t.Helper()
	for i := range n {
		_, _, err := s.AddSource(bg, fmt.Sprintf("https://s%03d.example/", i), T0)
		must(t, err)
	}
}

func sourceIDs(ss []store.Source) []int64 {
	var ids []int64
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}

func testCheckoutDisjointDiscovery(t *testing.T, c CheckoutPair) {
	sources(t, c.A, 60)
	a, b := drain(t, c, func(s *store.DB) ([]int64, error) {
		ss, err := s.SourcesToDiscover(bg, T0, 4)
		for i, src := range ss {
			if err == nil && i%2 == 0 {
				err = s.MarkDiscovered(bg, src.ID, T0)
			} else if err == nil {
				err = s.PostponeDiscovery(bg, src.ID, store.Retry{At: T0.Add(time.Hour)})
			}
		}
		return sourceIDs(ss), err
	})
	if len(a)+len(b) != 60 {
		t.Fatalf("claimed %d+%d of 60", len(a), len(b))
	}
}

func testCheckoutDisjointSitemapDiscovery(t *testing.T, c CheckoutPair) {
	sources(t, c.A, 40)
	ss, err := c.A.SourcesToDiscover(bg, T0, 100)
	must(t, err)
	for _, src := range ss {
		must(t, c.A.MarkDiscovered(bg, src.ID, T0))
	}
	a, b := drain(t, c, func(s *store.DB) ([]int64, error) {
		ss, err := s.SourcesForSitemaps(bg, false, T0, 3)
		for _, src := range ss {
			if err == nil {
				err = s.MarkSitemapsChecked(bg, src.ID, T0)
			}
		}
		return sourceIDs(ss), err
	})
	if len(a)+len(b) != 40 {
		t.Fatalf("claimed %d+%d of 40", len(a), len(b))
	}
}

func testCheckoutDisjointSitemaps(t *testing.T, c CheckoutPair) {
	src := source(t, c.A, "https://c.example/")
	for i := range 30 {
		_, err := c.A.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: fmt.Sprintf("https://c.example/sm%d.xml", i), Via: model.ViaRobots})
		must(t, err)
	}
	a, b := drain(t, c, func(s *store.DB) ([]int64, error) {
		sms, err := s.SitemapsDue(bg, T0, T0, false, 2)
		var ids []int64
		for _, sm := range sms {
			ids = append(ids, sm.ID)
			sm.LastRead = T0
			if err == nil {
				err = s.UpdateSitemap(bg, sm)
			}
		}
		return ids, err
	})
	if len(a)+len(b) != 30 {
		t.Fatalf("claimed %d+%d of 30", len(a), len(b))
	}
}

// A catalogue walk stores its progress page by page; between two pages the
// feed must stay with the walker, and once the walk ends it is free.
func testCheckoutCatalogueWalk(t *testing.T, c CheckoutPair) {
	src := source(t, c.A, "https://c.example/")
	f, err := c.A.AddFeed(bg, store.Feed{SourceID: src.ID, URL: "https://c.example/feed"})
	must(t, err)
	f.LastRead, f.Checked = T0, T0
	must(t, c.A.UpdateFeed(bg, f))
	fs, err := c.A.CataloguesDue(bg, T0, 10)
	must(t, err)
	if len(fs) != 1 {
		t.Fatalf("A claimed %d catalogues", len(fs))
	}
	if got, _ := c.B.CataloguesDue(bg, T0, 10); len(got) != 0 {
		t.Fatalf("B took a catalogue A holds")
	}
	f = fs[0]
	f.Catalogue, f.NextPage, f.Pages = model.CataloguePending, "https://c.example/feed?paged=2", 1
	_, err = c.A.FeedRead(bg, nil, func(store.AddResult) store.Feed { return f })
	must(t, err)
	if got, _ := c.B.CataloguesDue(bg, T0, 10); len(got) != 0 {
		t.Fatalf("B took a catalogue in the middle of A's walk")
	}
	if got, _ := c.B.FeedsDue(bg, T0.Add(time.Hour), T0.Add(time.Hour), T0, 10); len(got) != 0 {
		t.Fatalf("B polled a feed in the middle of A's walk")
	}
	// A dead walker's feed is taken over once the renewed checkout lapses.
	c.Advance(CheckoutTTL + time.Second)
	got, err := c.B.CataloguesDue(bg, T0, 10)
	must(t, err)
	if len(got) != 1 || got[0].NextPage != f.NextPage {
		t.Fatalf("B took over %v, want the walk at page 2", got)
	}
	f = got[0]
	f.Catalogue = model.CatalogueDone
	must(t, c.B.UpdateFeed(bg, f))
	if got, _ := c.A.FeedsDue(bg, T0.Add(time.Hour), T0.Add(time.Hour), T0, 10); len(got) != 1 {
		t.Fatalf("after the walk A got %d feeds to poll, want 1", len(got))
	}
}
