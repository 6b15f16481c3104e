// Package storetest is the test suite the store (*store.DB) must pass on
// every backend; it imports nothing above the store.
package storetest

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// T0 is the suite's reference time.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// RunSuite runs the suite; newStore returns an empty store, closed by the
// test's cleanup.
func RunSuite(t *testing.T, newStore func(t *testing.T) *store.DB) {
	tests := []struct {
		name string
		fn   func(*testing.T, *store.DB)
	}{
		{"Sources", testSources},
		{"Origins", testOrigins},
		{"Feeds", testFeeds},
		{"FeedsDue", testFeedsDue},
		{"Posts", testPosts},
		{"PostsModified", testPostsModified},
		{"SavePage", testSavePage},
		{"Markdown", testMarkdown},
		{"Sitemaps", testSitemaps},
		{"SitemapKinds", testSitemapKinds},
		{"IngestDiff", testIngestDiff},
		{"Truncated", testTruncated},
		{"Refusals", testRefusals},
		{"RobotsRecords", testRobotsRecords},
		{"Requests", testRequests},
		{"PostKeys", testPostKeys},
		{"Canonical", testCanonical},
		{"Moved", testMoved},
		{"RetrySite", testRetrySite},
		{"FirstSeen", testFirstSeen},
		{"Waits", testWaits},
		{"Credentials", testCredentials},
		{"SourceIdentity", testSourceIdentity},
		{"SourceIdentityMigration", testSourceIdentityMigration},
		{"FeedSource", testFeedSource},
		{"RetriesWaiting", testRetriesWaiting},
		{"DueAgree", testDueAgree},
		{"SitemapNote", testSitemapNote},
		{"SourceErrorPublic", testSourceErrorPublic},
		{"EachPaged", testEachPaged},
		{"SourcesNextDue", testSourcesNextDue},
		{"RemoveSources", testRemoveSources},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			tc.fn(t, s)
			siteLinksAgree(t, s)
		})
	}
}

// siteLinksAgree checks, after whatever a test did to posts and their
// links (saves, re-saves, merges, removals, re-extraction), that the
// "cited by" counts the triggers keep are the links counted afresh.
func siteLinksAgree(t *testing.T, s *store.DB) {
	t.Helper()
	read := func(q string) map[[2]string]int64 {
		rows, err := s.Writer().QueryContext(bg, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		out := map[[2]string]int64{}
		for rows.Next() {
			var k [2]string
			var n int64
			must(t, rows.Scan(&k[0], &k[1], &n))
			out[k] = n
		}
		must(t, rows.Err())
		return out
	}
	counted := read(`SELECT from_site, to_site, links FROM site_links WHERE links <> 0`)
	links := read(`SELECT from_site, to_site, count(*) FROM links GROUP BY from_site, to_site`)
	if !maps.Equal(counted, links) {
		t.Errorf("site_links %v, links counted afresh %v", counted, links)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var bg = context.Background()

func source(t *testing.T, s *store.DB, u string) store.Source {
	t.Helper()
	src, _, err := s.AddSource(bg, u, T0)
	must(t, err)
	return src
}

func testSources(t *testing.T, s *store.DB) {
	a, isNew, err := s.AddSource(bg, "https://a.example/", T0)
	must(t, err)
	if !isNew || a.ID == 0 {
		t.Fatalf("first add: new=%v id=%d", isNew, a.ID)
	}
	b, isNew, err := s.AddSource(bg, "https://a.example/", T0.Add(time.Hour))
	must(t, err)
	if isNew || b.ID != a.ID || !b.Added.Equal(T0) {
		t.Fatalf("second add: new=%v %+v", isNew, b)
	}
	source(t, s, "https://b.example/")
	todo, err := s.SourcesToDiscover(bg, T0, 10)
	must(t, err)
	if len(todo) != 2 {
		t.Fatalf("to discover: %d", len(todo))
	}
	must(t, s.MarkDiscovered(bg, a.ID, T0))
	todo, _ = s.SourcesToDiscover(bg, T0, 10)
	if len(todo) != 1 || todo[0].URL != "https://b.example/" {
		t.Fatalf("to discover after mark: %+v", todo)
	}
	must(t, s.PostponeDiscovery(bg, todo[0].ID, store.Retry{At: T0.Add(time.Hour)}))
	if todo, _ = s.SourcesToDiscover(bg, T0, 10); len(todo) != 0 {
		t.Fatalf("postponed source offered: %+v", todo)
	}
	if todo, _ = s.SourcesToDiscover(bg, T0.Add(time.Hour), 10); len(todo) != 1 {
		t.Fatalf("postponed source not offered after its time: %+v", todo)
	}
	got, err := s.Source(bg, a.ID)
	must(t, err)
	if !got.Discovered.Equal(T0) {
		t.Fatalf("discovered %v", got.Discovered)
	}
	if _, err := s.Source(bg, 999); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("missing source: %v", err)
	}
	n := 0
	must(t, s.EachSource(bg, func(store.Source) error { n++; return nil }))
	if n != 2 {
		t.Fatalf("each: %d", n)
	}
}

func testOrigins(t *testing.T, s *store.DB) {
	if _, err := s.Origin(bg, "https://a.example"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	must(t, s.PutOrigin(bg, model.Origin{Origin: "https://a.example", Status: 200, State: "parsed", Checked: T0}))
	must(t, s.PutOrigin(bg, model.Origin{Origin: "https://a.example", Status: 404, State: "no-file", Checked: T0}))
	o, err := s.Origin(bg, "https://a.example")
	must(t, err)
	if o.Status != 404 || o.State != "no-file" || !o.Checked.Equal(T0) || o.Blocked {
		t.Fatalf("%+v", o)
	}
	for _, blocked := range []bool{true, false} { // set, then cleared by the next read
		must(t, s.PutOrigin(bg, model.Origin{Origin: "https://a.example", Status: 200, State: "parsed", Checked: T0, Blocked: blocked}))
		if o, err := s.Origin(bg, "https://a.example"); err != nil || o.Blocked != blocked {
			t.Fatalf("blocked %v: %+v %v", blocked, o, err)
		}
	}
	// A later robots.txt read updates the standing and keeps the status;
	// an origin never recorded is not created by it.
	later := T0.Add(time.Hour)
	must(t, s.UpdateOriginStanding(bg, model.Origin{Origin: "https://a.example", State: "stale-copy", Checked: later, Blocked: true}))
	if o, err := s.Origin(bg, "https://a.example"); err != nil || o.Status != 200 || o.State != "stale-copy" || !o.Checked.Equal(later) || !o.Blocked {
		t.Fatalf("after UpdateOriginStanding: %+v %v", o, err)
	}
	must(t, s.UpdateOriginStanding(bg, model.Origin{Origin: "https://new.example", State: "parsed", Checked: later}))
	if _, err := s.Origin(bg, "https://new.example"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("UpdateOriginStanding created an origin: %v", err)
	}
}

func testFeeds(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	f, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: "https://a.example/feed"})
	must(t, err)
	if f.ID == 0 || f.State != model.FeedActive || f.Catalogue != model.CatalogueNone {
		t.Fatalf("%+v", f)
	}
	f.ETag, f.LastModified, f.LastRead, f.Checked = `"x"`, "Mon, 02 Jan 2026 03:04:05 GMT", T0, T0
	f.Catalogue, f.NextPage, f.Pages = model.CataloguePending, "https://a.example/feed?paged=3", 2
	must(t, s.UpdateFeed(bg, f))
	again, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: "https://a.example/feed"})
	must(t, err)
	if again != f {
		t.Fatalf("re-add changed the feed:\n%+v\n%+v", again, f)
	}
	fs, err := s.SourceFeeds(bg, src.ID)
	must(t, err)
	if len(fs) != 1 || fs[0] != f {
		t.Fatalf("%+v", fs)
	}
	cat, err := s.CataloguesDue(bg, T0, 10)
	must(t, err)
	if len(cat) != 1 {
		t.Fatalf("catalogues due %d", len(cat))
	}
	f.Catalogue = model.CatalogueDone
	must(t, s.UpdateFeed(bg, f))
	cat, _ = s.CataloguesDue(bg, T0, 10)
	if len(cat) != 0 {
		t.Fatalf("done catalogue still due")
	}
}

func testFeedsDue(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	mk := func(u string, state string, read, checked time.Time) store.Feed {
		f, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: u})
		must(t, err)
		f.State, f.LastRead, f.Checked = state, read, checked
		if !read.IsZero() {
			f.NextDue = read.Add(24 * time.Hour)
		}
		must(t, s.UpdateFeed(bg, f))
		return f
	}
	mk("https://a.example/new", model.FeedActive, time.Time{}, time.Time{})
	mk("https://a.example/old", model.FeedActive, T0.Add(-48*time.Hour), T0.Add(-48*time.Hour))
	mk("https://a.example/fresh", model.FeedActive, T0.Add(-time.Hour), T0.Add(-time.Hour))
	mk("https://a.example/dis-old", model.FeedDisallowed, time.Time{}, T0.Add(-9*24*time.Hour))
	mk("https://a.example/dis-new", model.FeedDisallowed, time.Time{}, T0.Add(-time.Hour))
	due, err := s.FeedsDue(bg, T0, T0.Add(-24*time.Hour), T0.Add(-7*24*time.Hour), 10)
	must(t, err)
	var got []string
	for _, f := range due {
		got = append(got, f.URL)
	}
	want := []string{"https://a.example/new", "https://a.example/dis-old", "https://a.example/old"}
	if len(got) != len(want) {
		t.Fatalf("due %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("due %v, want %v (longest overdue first)", got, want)
		}
	}
	due, _ = s.FeedsDue(bg, T0, T0.Add(-24*time.Hour), T0.Add(-7*24*time.Hour), 1)
	if len(due) != 1 || due[0].URL != want[0] {
		t.Fatalf("limit 1: %+v", due)
	}
}

func testPosts(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	res, err := s.AddPosts(bg, []store.NewPost{
		{URL: "https://a.example/1", SourceID: src.ID, Title: "One", Published: T0, Text: "full text"},
		{URL: "https://a.example/2", SourceID: src.ID, Title: "Two", Published: T0},
	})
	must(t, err)
	if res.Added != 2 {
		t.Fatalf("%+v", res)
	}
	res, err = s.AddPosts(bg, []store.NewPost{{URL: "https://a.example/2", SourceID: src.ID, Title: "Two again"}})
	must(t, err)
	if res.Added != 0 || res.Modified != 0 {
		t.Fatalf("known entry inserted: %+v", res)
	}
	p1, err := s.Post(bg, "https://a.example/1")
	must(t, err)
	if p1.State != model.PostIndexed || p1.TextFrom != model.TextFromFeed || p1.Due || p1.Text != "full text" {
		t.Fatalf("full-content post: %+v", p1)
	}
	p2, _ := s.Post(bg, "https://a.example/2")
	if p2.State != model.PostPending || !p2.Due || p2.Title != "Two" {
		t.Fatalf("pending post: %+v", p2)
	}
	due, err := s.PostsDue(bg, 0, T0, 10)
	must(t, err)
	if len(due) != 1 || due[0].URL != p2.URL {
		t.Fatalf("due: %+v", due)
	}
	due, _ = s.PostsDue(bg, src.ID+1, T0, 10)
	if len(due) != 0 {
		t.Fatalf("other source's due: %+v", due)
	}
	if _, err := s.Post(bg, "https://a.example/none"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("missing post: %v", err)
	}
}

func testPostsModified(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	_, err := s.AddPosts(bg, []store.NewPost{{URL: "https://a.example/1", SourceID: src.ID, Lastmod: T0}})
	must(t, err)
	p, _ := s.Post(bg, "https://a.example/1")
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "x", TextFrom: model.TextFromPage, Fetched: T0}))
	res, err := s.AddPosts(bg, []store.NewPost{{URL: "https://a.example/1", SourceID: src.ID, Lastmod: T0}})
	must(t, err)
	if res.Modified != 0 {
		t.Fatalf("same date counted modified")
	}
	res, err = s.AddPosts(bg, []store.NewPost{{URL: "https://a.example/1", SourceID: src.ID, Lastmod: T0.Add(time.Hour)}})
	must(t, err)
	if res.Modified != 1 {
		t.Fatalf("advanced date not modified: %+v", res)
	}
	p, _ = s.Post(bg, "https://a.example/1")
	if !p.Due || p.State != model.PostIndexed || !p.Lastmod.Equal(T0.Add(time.Hour)) {
		t.Fatalf("%+v", p)
	}
}

func testSavePage(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	_, err := s.AddPosts(bg, []store.NewPost{{URL: "https://a.example/1", SourceID: src.ID, Title: "Feed title"}})
	must(t, err)
	p, _ := s.Post(bg, "https://a.example/1")
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "body", TextFrom: model.TextFromPage,
		ETag: `"e"`, LastModified: "lm", Citations: []string{"https://b.example/x"}, Fetched: T0, Published: T0}))
	p, _ = s.Post(bg, p.URL)
	if p.Due || p.State != model.PostIndexed || p.Text != "body" || p.ETag != `"e"` || len(p.Citations) != 1 || p.Title != "Feed title" || !p.Published.Equal(T0) {
		t.Fatalf("%+v", p)
	}
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, Keep: true, Fetched: T0.Add(time.Hour)}))
	p, _ = s.Post(bg, p.URL)
	if p.Text != "body" || p.ETag != `"e"` || !p.Fetched.Equal(T0.Add(time.Hour)) {
		t.Fatalf("304 changed the post: %+v", p)
	}
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostNoindex, Fetched: T0}))
	p, _ = s.Post(bg, p.URL)
	if p.Text != "" || p.State != model.PostNoindex || len(p.Citations) != 0 {
		t.Fatalf("noindex kept text: %+v", p)
	}
}

func testSitemaps(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	idx, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://a.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	for i, u := range []string{"https://a.example/s1.xml", "https://a.example/s2.xml"} {
		_, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: u, Via: model.ViaRobots, ParentID: idx.ID, Lastmod: T0.Add(time.Duration(i) * time.Hour)})
		must(t, err)
	}
	kids, err := s.ChildSitemaps(bg, idx.ID)
	must(t, err)
	if len(kids) != 2 || kids[0].URL != "https://a.example/s2.xml" {
		t.Fatalf("children not newest first: %+v", kids)
	}
	top, err := s.SourceSitemaps(bg, src.ID)
	must(t, err)
	if len(top) != 1 || top[0].ID != idx.ID {
		t.Fatalf("top: %+v", top)
	}
	due, err := s.SitemapsDue(bg, T0, T0, false, 10)
	must(t, err)
	if len(due) != 1 {
		t.Fatalf("due %+v", due)
	}
	idx.LastRead, idx.ETag = T0, `"v"`
	must(t, s.UpdateSitemap(bg, idx))
	due, _ = s.SitemapsDue(bg, T0, T0, false, 10)
	if len(due) != 0 {
		t.Fatalf("read sitemap still due")
	}
}

// testSitemapKinds: a sitemap's kind and skip counts are kept, and a
// sitemap recorded as skipped is never due: not by itself, not as a
// child with a retry, not as the "never read" sitemap of a truncated source.
func testSitemapKinds(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	must(t, s.MarkDiscovered(bg, src.ID, T0))
	must(t, s.MarkSitemapsChecked(bg, src.ID, T0))
	f, _ := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: "https://a.example/feed"})
	f.LastRead, f.Checked, f.NextDue, f.Catalogue = T0, T0, T0.Add(time.Hour), model.CatalogueDone
	must(t, s.UpdateFeed(bg, f)) // its archive is the sitemaps': a truncated source
	nothingDue := func(when string) {
		t.Helper()
		for _, truncated := range []bool{false, true} {
			if due, err := s.SitemapsDue(bg, T0, T0, truncated, 10); err != nil || len(due) != 0 {
				t.Fatalf("%s: SitemapsDue(truncated %v) = %+v, %v", when, truncated, due, err)
			}
		}
		if due, err := s.SourceSitemapsDue(bg, src.ID, T0, T0); err != nil || len(due) != 0 {
			t.Fatalf("%s: SourceSitemapsDue = %+v, %v", when, due, err)
		}
		if sites := dueSiteNames(t, s, "r"); len(sites) != 0 {
			t.Fatalf("%s: due sites %v", when, sites)
		}
		if n, err := s.CountDueSites(bg, siteQuery("", 0)); err != nil || n != 0 {
			t.Fatalf("%s: CountDueSites = %d, %v", when, n, err)
		}
	}

	tax, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://a.example/category-sitemap.xml", Via: model.ViaRobots,
		Kind: "taxonomies", State: model.SitemapSkipped})
	must(t, err)
	if tax.Kind != "taxonomies" || tax.State != model.SitemapSkipped || !tax.LastRead.IsZero() {
		t.Fatalf("added skipped sitemap: %+v", tax)
	}
	nothingDue("a top-level taxonomy sitemap, never read")

	idx, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://a.example/sitemap_index.xml", Via: model.ViaRobots, Kind: "unknown"})
	must(t, err)
	if due, _ := s.SitemapsDue(bg, T0, T0, true, 10); len(due) != 1 || due[0].ID != idx.ID {
		t.Fatalf("the index never read, of a truncated source: due %+v", due)
	}
	posts, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://a.example/post-sitemap.xml", Via: model.ViaRobots,
		ParentID: idx.ID, Lastmod: T0, Kind: "posts"})
	must(t, err)
	authors, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://a.example/author-sitemap.xml", Via: model.ViaRobots,
		ParentID: idx.ID, Lastmod: T0.Add(-time.Hour), Kind: "authors", State: model.SitemapSkipped})
	must(t, err)
	posts.LastRead, posts.ReadLastmod = T0, T0
	posts.SkippedPages, posts.SkippedTaxonomies, posts.SkippedAuthors, posts.SkippedOther = 1, 2, 3, 4
	must(t, s.UpdateSitemap(bg, posts))
	idx.LastRead = T0
	must(t, s.UpdateSitemap(bg, idx))
	// A skipped child with a retry count (which the crawl never leaves on
	// one) is still not due.
	authors.Attempts = 2
	must(t, s.UpdateSitemap(bg, authors))
	nothingDue("the index read, its skipped children never")

	kids, err := s.ChildSitemaps(bg, idx.ID)
	must(t, err)
	if len(kids) != 2 || kids[0].ID != posts.ID || kids[1].ID != authors.ID {
		t.Fatalf("children: %+v", kids)
	}
	if k := kids[0]; k.Kind != "posts" || k.State != "active" || k.SkippedPages != 1 || k.SkippedTaxonomies != 2 || k.SkippedAuthors != 3 || k.SkippedOther != 4 {
		t.Fatalf("posts child's kind and skip counts: %+v", k)
	}
	if k := kids[1]; k.Kind != "authors" || k.State != model.SitemapSkipped || k.SkippedPages+k.SkippedTaxonomies+k.SkippedAuthors+k.SkippedOther != 0 {
		t.Fatalf("skipped child: %+v", k)
	}
	// Listed again, a known sitemap keeps its kind, state and counts; its
	// lastmod follows the index.
	again, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://a.example/post-sitemap.xml", Via: model.ViaRobots,
		ParentID: idx.ID, Lastmod: T0.Add(time.Hour), Kind: "unknown", State: model.SitemapSkipped})
	must(t, err)
	if again.Kind != "posts" || again.State != "active" || again.SkippedOther != 4 || !again.Lastmod.Equal(T0.Add(time.Hour)) {
		t.Fatalf("re-listed child: %+v", again)
	}
	// A skipped sitemap that the crawl reads again (its name read
	// otherwise under a newer rule) is due like any other.
	tax.State, tax.Kind = "active", "unknown"
	must(t, s.UpdateSitemap(bg, tax))
	if due, _ := s.SourceSitemapsDue(bg, src.ID, T0, T0); len(due) != 1 || due[0].ID != tax.ID {
		t.Fatalf("no longer skipped, never read: due %+v", due)
	}
}

func testIngestDiff(t *testing.T, s *store.DB) {
	src := source(t, s, "https://a.example/")
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://a.example/sitemap.xml", Via: model.ViaWellKnown})
	must(t, err)
	day1 := []store.SitemapURL{{Loc: "https://a.example/1", Lastmod: T0}, {Loc: "https://a.example/2", Lastmod: T0}, {Loc: "https://a.example/3", Lastmod: time.Time{}}}
	d, err := s.IngestSitemap(bg, sm, T0, day1, true)
	must(t, err)
	if d != (store.Diff{New: 3}) {
		t.Fatalf("day 1: %+v", d)
	}
	for _, u := range []string{"https://a.example/1", "https://a.example/2", "https://a.example/3"} {
		p, _ := s.Post(bg, u)
		must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "t", TextFrom: model.TextFromPage, Fetched: T0}))
	}
	day2 := []store.SitemapURL{{Loc: "https://a.example/1", Lastmod: T0.Add(time.Hour)}, {Loc: "https://a.example/3", Lastmod: T0}, {Loc: "https://a.example/4", Lastmod: T0}}
	d, err = s.IngestSitemap(bg, sm, T0, day2, true)
	must(t, err)
	if d != (store.Diff{New: 1, Modified: 1, Removed: 1}) {
		t.Fatalf("day 2: %+v", d)
	}
	p2, _ := s.Post(bg, "https://a.example/2")
	if p2.State != model.PostRemoved || p2.Text != "t" || p2.Due {
		t.Fatalf("removed: %+v", p2)
	}
	p1, _ := s.Post(bg, "https://a.example/1")
	if !p1.Due || !p1.Lastmod.Equal(T0.Add(time.Hour)) {
		t.Fatalf("modified: %+v", p1)
	}
	p3, _ := s.Post(bg, "https://a.example/3")
	if p3.Due || !p3.Lastmod.Equal(T0) {
		t.Fatalf("first lastmod is not a modification: %+v", p3)
	}
	// A partial read removes nothing.
	d, err = s.IngestSitemap(bg, sm, T0, day2[:1], false)
	must(t, err)
	if d.Removed != 0 {
		t.Fatalf("partial read removed %d", d.Removed)
	}
	// The removed URL comes back: its state is restored.
	d, err = s.IngestSitemap(bg, sm, T0, append(day2, store.SitemapURL{Loc: "https://a.example/2", Lastmod: T0}), true)
	must(t, err)
	if d.Returned != 1 {
		t.Fatalf("returned: %+v", d)
	}
	p2, _ = s.Post(bg, "https://a.example/2")
	if p2.State != model.PostIndexed || p2.Due {
		t.Fatalf("came back: %+v", p2)
	}
}

func testTruncated(t *testing.T, s *store.DB) {
	a := source(t, s, "https://a.example/")
	b := source(t, s, "https://b.example/")
	must(t, s.MarkDiscovered(bg, a.ID, T0))
	must(t, s.MarkDiscovered(bg, b.ID, T0))
	fa, _ := s.AddFeed(bg, store.Feed{SourceID: a.ID, URL: "https://a.example/feed"})
	fb, _ := s.AddFeed(bg, store.Feed{SourceID: b.ID, URL: "https://b.example/feed"})
	fa.Catalogue = model.CatalogueDone
	must(t, s.UpdateFeed(bg, fa))
	_ = fb
	got, err := s.SourcesForSitemaps(bg, true, T0, 10)
	must(t, err)
	if len(got) != 1 || got[0].ID != a.ID {
		t.Fatalf("truncated discover: %+v", got)
	}
	all, _ := s.SourcesForSitemaps(bg, false, T0, 10)
	if len(all) != 2 {
		t.Fatalf("all discover: %+v", all)
	}
	must(t, s.PostponeSitemaps(bg, b.ID, store.Retry{At: T0.Add(time.Hour)}))
	if all, _ = s.SourcesForSitemaps(bg, false, T0, 10); len(all) != 1 {
		t.Fatalf("postponed: %+v", all)
	}
	must(t, s.MarkSitemapsChecked(bg, a.ID, T0))
	sm, _ := s.AddSitemap(bg, store.Sitemap{SourceID: a.ID, URL: "https://a.example/sitemap.xml", Via: model.ViaRobots})
	due, _ := s.SitemapsDue(bg, T0, T0, true, 10)
	if len(due) != 1 {
		t.Fatalf("unread sitemap of truncated source not due")
	}
	_, err = s.IngestSitemap(bg, sm, T0, []store.SitemapURL{{Loc: "https://a.example/old"}}, true)
	must(t, err)
	sm.LastRead = T0.Add(-time.Hour)
	must(t, s.UpdateSitemap(bg, sm))
	due, _ = s.SitemapsDue(bg, T0, T0, true, 10)
	if len(due) != 1 {
		t.Fatalf("archive not filled in yet, but not due")
	}
	p, _ := s.Post(bg, "https://a.example/old")
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Fetched: T0}))
	due, _ = s.SitemapsDue(bg, T0, T0, true, 10)
	if len(due) != 0 {
		t.Fatalf("filled-in source still truncated")
	}
}

// testRefusals: a site's 403 refusal state is stored and read back whole;
// a site never stored has the zero state.
func testRefusals(t *testing.T, s *store.DB) {
	if got, err := s.Refusal(bg, "a.example"); err != nil || got != (model.RefusalState{}) {
		t.Fatalf("never stored: %+v %v", got, err)
	}
	for _, want := range []model.RefusalState{
		{Consecutive403: 3, Refused: true, LastAsked: T0},
		{Consecutive403: 1},
		{Served: true},
	} {
		must(t, s.PutRefusal(bg, "a.example", want))
		got, err := s.Refusal(bg, "a.example")
		must(t, err)
		if got.Consecutive403 != want.Consecutive403 || got.Served != want.Served || got.Refused != want.Refused || !got.LastAsked.Equal(want.LastAsked) {
			t.Fatalf("read back %+v, want %+v", got, want)
		}
	}
}

func testRequests(t *testing.T, s *store.DB) {
	must(t, s.LogRequests(bg, []model.RequestRecord{
		{Site: "a.example", URL: "https://a.example/feed", Purpose: model.PurposeFeed, Status: 200, Start: T0, Outcome: model.OutcomeFetched},
		{Site: "a.example", URL: "https://a.example/1", Purpose: model.PurposePage, Status: 0, Start: T0, Outcome: model.OutcomeError, Err: errors.New("boom")},
	}))
	n, err := s.RequestCount(bg, "")
	must(t, err)
	if n != 2 {
		t.Fatalf("%d", n)
	}
	n, _ = s.RequestCount(bg, model.PurposePage)
	if n != 1 {
		t.Fatalf("%d", n)
	}
}

// testRobotsRecords: an origin's robots.txt record is stored and read
// back whole, replaced by the next put; no file stays distinct from an
// empty one.
func testRobotsRecords(t *testing.T, s *store.DB) {
	if _, err := s.Robots(bg, "https://a.example"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	file := "User-agent: *\nDisallow: /private/\nSitemap: https://a.example/sm.xml\n"
	for _, want := range []model.RobotsRecord{
		{Origin: "https://a.example", State: "parsed", TTL: 24 * time.Hour, File: file, HasFile: true, Checked: T0, Expires: T0.Add(24 * time.Hour),
			LastFile: file, HasLast: true, LastFetched: T0, ETag: `"r"`, LastModified: "lm"},
		{Origin: "https://a.example", State: "unreachable", TTL: 6 * time.Hour, Checked: T0.Add(time.Hour), Expires: T0.Add(7 * time.Hour),
			LastFile: file, HasLast: true, LastFetched: T0, UnreachableSince: T0.Add(time.Hour), ETag: `"r"`},
		{Origin: "https://b.example", State: "no-file", TTL: time.Hour, Checked: T0},
		{Origin: "https://c.example", State: "parsed", TTL: time.Hour, HasFile: true, Checked: T0},
	} {
		must(t, s.PutRobots(bg, want))
		got, err := s.Robots(bg, want.Origin)
		must(t, err)
		if got.Origin != want.Origin || got.State != want.State || got.TTL != want.TTL || got.File != want.File || got.HasFile != want.HasFile ||
			!got.Checked.Equal(want.Checked) || !got.Expires.Equal(want.Expires) || got.LastFile != want.LastFile || got.HasLast != want.HasLast ||
			!got.LastFetched.Equal(want.LastFetched) || !got.UnreachableSince.Equal(want.UnreachableSince) || got.ETag != want.ETag ||
			got.LastModified != want.LastModified {
			t.Errorf("read back %+v, want %+v", got, want)
		}
	}
}
