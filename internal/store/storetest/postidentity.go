package storetest

import (
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/urlkey"
)

// The identity cases (store identity: one post, one record), run by
// RunSuite on every backend.

// postCount counts the posts of the store.
func postCount(t *testing.T, s *store.DB) int {
	t.Helper()
	n := 0
	must(t, s.EachPost(bg, func(store.Post) error { n++; return nil }))
	return n
}

// Variants the key folds by itself are one post from the first add: case,
// default port, dot segments, percent-encoding, fragment, tracking
// parameters. Variants only the site can fold (scheme, www., trailing
// slash) stay apart until it does.
func testPostKeys(t *testing.T, s *store.DB) {
	src := source(t, s, "https://www.keys.example/")
	same := []string{
		"https://www.keys.example/2026/01/post",
		"HTTPS://WWW.KEYS.EXAMPLE:443/2026/01/post",
		"https://www.keys.example/2026/01/./x/../post",
		"https://www.keys.example/2026/01/post#comments",
		"https://www.keys.example/2026/01/post?utm_source=rss&utm_medium=feed",
		"https://www.keys.example/2026/01/po%73t?fbclid=abc",
	}
	for _, u := range same {
		_, err := s.AddPosts(bg, []store.NewPost{{URL: u, SourceID: src.ID}})
		must(t, err)
	}
	if n := postCount(t, s); n != 1 {
		t.Fatalf("%d posts for %d spellings of one URL, want 1", n, len(same))
	}
	for _, u := range same {
		if p, err := s.Post(bg, u); err != nil || p.URL != same[0] {
			t.Errorf("Post(%s) = %q, %v; want the one record %s", u, p.URL, err, same[0])
		}
	}
	apart := []string{"http://www.keys.example/2026/01/post", "https://keys.example/2026/01/post", "https://www.keys.example/2026/01/post/"}
	for _, u := range apart {
		_, err := s.AddPosts(bg, []store.NewPost{{URL: u, SourceID: src.ID}})
		must(t, err)
	}
	if n := postCount(t, s); n != 4 {
		t.Fatalf("%d posts, want 4: scheme, www. and slash are folded only on the site's word", n)
	}
	// The site shows (a canonical link, say) that it spells https, www.,
	// no trailing slash: the unfetched variants fold into the first post.
	n, err := s.LearnSpelling(bg, same[0], urlkey.Scheme|urlkey.WWW|urlkey.TrailingSlash)
	must(t, err)
	if n != 3 || postCount(t, s) != 1 {
		t.Fatalf("LearnSpelling changed %d posts, %d left; want 3 merged into 1", n, postCount(t, s))
	}
	for _, u := range apart {
		if p, err := s.Post(bg, u); err != nil || p.URL != same[0] {
			t.Errorf("Post(%s) = %q, %v; want the one record", u, p.URL, err)
		}
	}
	// And later URLs of the host are spelled that way from the start.
	_, err = s.AddPosts(bg, []store.NewPost{{URL: "http://keys.example/2026/02/other/?utm_campaign=x", SourceID: src.ID}})
	must(t, err)
	if p, err := s.Post(bg, "https://www.keys.example/2026/02/other"); err != nil || p.URL != "https://www.keys.example/2026/02/other" {
		t.Errorf("a later URL: %q, %v", p.URL, err)
	}
	// A sitemap listing variants adds nothing new either.
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://www.keys.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	diff, err := s.IngestSitemap(bg, sm, T0, []store.SitemapURL{{Loc: "http://keys.example/2026/01/post/?utm_source=x", Lastmod: T0}}, true)
	must(t, err)
	if diff.New != 0 || postCount(t, s) != 2 {
		t.Errorf("sitemap variant: %+v, %d posts; want nothing new", diff, postCount(t, s))
	}
}

// A page's canonical link (or a permanent redirect) on the same site
// records the post under that URL: renamed when no other record has it,
// merged into the one that has, the old URL an alias either way. A
// canonical URL on another site is recorded, not followed.
func testCanonical(t *testing.T, s *store.DB) {
	src := source(t, s, "https://canon.example/")
	_, err := s.AddPosts(bg, []store.NewPost{
		{URL: "https://canon.example/?p=12", SourceID: src.ID, Title: "Short link"},
		{URL: "https://canon.example/posts/b", SourceID: src.ID, Title: "B", Published: T0},
		{URL: "https://canon.example/amp/b", SourceID: src.ID},
		{URL: "https://canon.example/posts/c", SourceID: src.ID},
	})
	must(t, err)
	page := func(u, canonical, elsewhere string) {
		t.Helper()
		p, err := s.Post(bg, u)
		must(t, err)
		must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "text of " + u, TextFrom: model.TextFromPage,
			Fetched: T0, Citations: []string{"https://cited.example/x"}, Canonical: canonical, Elsewhere: elsewhere}))
	}
	// Renamed: no record had the canonical URL.
	page("https://canon.example/?p=12", "https://canon.example/posts/a", "")
	if p, err := s.Post(bg, "https://canon.example/?p=12"); err != nil || p.URL != "https://canon.example/posts/a" || p.State != model.PostIndexed {
		t.Errorf("renamed: %+v, %v", p, err)
	}
	// Merged: the AMP page names the post's own record, which was not
	// fetched yet: its page becomes that record's, and it is not owed.
	page("https://canon.example/amp/b", "https://canon.example/posts/b", "")
	b, err := s.Post(bg, "https://canon.example/amp/b")
	must(t, err)
	if b.URL != "https://canon.example/posts/b" || b.State != model.PostIndexed || b.Due || b.Text != "text of https://canon.example/amp/b" ||
		b.Title != "B" || !b.Published.Equal(T0) || len(b.Citations) != 1 {
		t.Errorf("merged: %+v", b)
	}
	if n := postCount(t, s); n != 3 {
		t.Errorf("%d posts after the merge, want 3", n)
	}
	due, err := s.PostsDue(bg, src.ID, T0, 10)
	must(t, err)
	if len(due) != 1 || due[0].URL != "https://canon.example/posts/c" {
		t.Errorf("due after the merge: %v, want only /posts/c", due)
	}
	// A feed that names the old URL again finds the record.
	res, err := s.AddPosts(bg, []store.NewPost{{URL: "https://canon.example/amp/b", SourceID: src.ID}})
	must(t, err)
	if res.Added != 0 {
		t.Errorf("the alias added a post")
	}
	// Beside the posts of a host with no alias (one whose origin the
	// aliased host's is the start of), from a feed and from a sitemap,
	// the aliases are still found and the others added as they are.
	other := source(t, s, "https://canon.example.org/")
	res, err = s.AddPosts(bg, []store.NewPost{
		{URL: "https://canon.example.org/amp/b", SourceID: other.ID},
		{URL: "https://canon.example/amp/b", SourceID: src.ID},
		{URL: "https://canon.example/?p=12", SourceID: src.ID},
	})
	must(t, err)
	if res.Added != 1 {
		t.Errorf("%d posts added beside two aliases, want 1 (the other host's)", res.Added)
	}
	if p, err := s.Post(bg, "https://canon.example.org/amp/b"); err != nil || p.URL != "https://canon.example.org/amp/b" {
		t.Errorf("the other host's post: %+v, %v", p, err)
	}
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://canon.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	diff, err := s.IngestSitemap(bg, sm, T0, []store.SitemapURL{
		{Loc: "https://canon.example.org/posts/z"}, {Loc: "https://canon.example/amp/b"}, {Loc: "https://canon.example/?p=12"},
	}, true)
	must(t, err)
	if diff.New != 1 {
		t.Errorf("a sitemap naming two aliases and one new URL: %+v, want 1 new", diff)
	}
	if n := postCount(t, s); n != 5 {
		t.Errorf("%d posts, want 5", n)
	}
	// Elsewhere: recorded, the post kept where it is.
	page("https://canon.example/posts/c", "", "https://syndicated.example/c")
	if p, err := s.Post(bg, "https://canon.example/posts/c"); err != nil || p.URL != "https://canon.example/posts/c" {
		t.Errorf("cross-site canonical moved the post: %+v, %v", p, err)
	}
}

// A feed or sitemap that moved for good is read at its new URL and found
// by its old one.
func testMoved(t *testing.T, s *store.DB) {
	src := source(t, s, "http://moved.example/")
	f, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: "http://moved.example/feed"})
	must(t, err)
	f.ETag, f.LastRead, f.Checked = `"v1"`, T0, T0
	must(t, s.UpdateFeed(bg, f))
	must(t, s.MoveFeed(bg, f.ID, "https://www.moved.example/feed/"))
	again, err := s.AddFeed(bg, store.Feed{SourceID: src.ID, URL: "http://moved.example/feed"})
	must(t, err)
	if again.ID != f.ID || again.URL != "https://www.moved.example/feed/" || again.ETag != `"v1"` || !again.LastRead.Equal(T0) {
		t.Errorf("the moved feed by its old URL: %+v", again)
	}
	feeds, err := s.SourceFeeds(bg, src.ID)
	must(t, err)
	if len(feeds) != 1 {
		t.Errorf("%d feeds, want 1", len(feeds))
	}
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "http://moved.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	must(t, s.MoveSitemap(bg, sm.ID, "https://www.moved.example/sitemap_index.xml"))
	sm2, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "http://moved.example/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	if sm2.ID != sm.ID || sm2.URL != "https://www.moved.example/sitemap_index.xml" {
		t.Errorf("the moved sitemap by its old URL: %+v", sm2)
	}
}
