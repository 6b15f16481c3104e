package storetest

import (
	"testing"

	"corpus.blog/corpusbot/internal/store"
)

// One source per homepage, whatever its spelling: AddSource returns the
// stored source for every spelling sourcelist.Identity folds, and stores a
// new one under its URL key (the host in punycode).
func testSourceIdentity(t *testing.T, s *store.DB) {
	for _, group := range [][]string{
		{"https://Example.com/", "https://example.com/", "https://example.com", "https://example.com:443/", "https://example.com/#about", "HTTPS://EXAMPLE.COM./"},
		{"https://b%C3%BCcher.example/", "https://bücher.example/", "https://xn--bcher-kva.example/", "https://XN--BCHER-KVA.example"},
		{"https://example.com/blog/", "https://example.com/blog", "https://Example.com:443/blog/#top"},
	} {
		first, isNew, err := s.AddSource(bg, group[0], T0)
		must(t, err)
		if !isNew {
			t.Errorf("AddSource(%q): not new", group[0])
		}
		for _, u := range group[1:] {
			again, isNew, err := s.AddSource(bg, u, T0)
			must(t, err)
			if isNew || again.ID != first.ID {
				t.Errorf("AddSource(%q) = source %d (%s), new %v; want source %d (%s), known", u, again.ID, again.URL, isNew, first.ID, first.URL)
			}
		}
	}
	idn, _, err := s.AddSource(bg, "https://bücher.example/", T0)
	must(t, err)
	if idn.URL != "https://xn--bcher-kva.example/" || idn.Site != "xn--bcher-kva.example" {
		t.Errorf("IDN source stored as %q (site %q), want its punycode key", idn.URL, idn.Site)
	}
	home, _, err := s.AddSource(bg, "https://EXAMPLE.com:443/#x", T0)
	must(t, err)
	if home.URL != "https://example.com/" {
		t.Errorf("source stored as %q, want https://example.com/", home.URL)
	}
	// Other blogs of one site, and the other scheme, are sources of their own.
	seen := map[int64]string{}
	for _, u := range []string{"https://example.com/", "http://example.com/", "https://www.example.com/", "https://example.com/alice/", "https://example.com:8443/"} {
		src, _, err := s.AddSource(bg, u, T0)
		must(t, err)
		if other, dup := seen[src.ID]; dup {
			t.Errorf("%s and %s are one source (%d), want two", u, other, src.ID)
		}
		seen[src.ID] = u
	}
}

// Sources stored before identities, several for one homepage, are merged
// into the earliest of them, keeping every feed, sitemap (with its
// listings), post, pause and discovery; the survivors take their URL keys
// and identities, so that AddSource finds them by any spelling.
func testSourceIdentityMigration(t *testing.T, s *store.DB) {
	// As stored before: the URL as given, no identity.
	w := s.Writer()
	exec, id, addRaw := rawRows(t, w)
	upper := addRaw("https://Example.com/", "example.com")
	port := addRaw("https://example.com:443/#about", "example.com")
	bare := addRaw("https://example.com", "example.com")
	unicode := addRaw("https://b%C3%BCcher.example/", "xn--bcher-kva.example")
	puny := addRaw("https://xn--bcher-kva.example", "xn--bcher-kva.example")
	slash := addRaw("https://other.example/blog/", "other.example")
	noSlash := addRaw("https://other.example/blog", "other.example")
	apart := addRaw("http://example.com/", "example.com")

	// The duplicate of example.com holds its feed, a sitemap both hold,
	// a post, and a discovery.
	exec(`INSERT INTO feeds(source_id, url, state, catalogue) VALUES ($1, 'https://example.com/feed', 'active', 'done')`, port)
	feedID := id(`SELECT id FROM feeds WHERE url = 'https://example.com/feed'`)
	exec(`INSERT INTO sitemaps(source_id, url, via, state) VALUES ($1, 'https://example.com/sitemap.xml', 'robots', 'active')`, upper)
	keptSitemap := id(`SELECT id FROM sitemaps WHERE source_id = $1`, upper)
	exec(`INSERT INTO sitemaps(source_id, url, via, state) VALUES ($1, 'https://example.com/sitemap.xml', 'well-known', 'active')`, port)
	goneSitemap := id(`SELECT id FROM sitemaps WHERE source_id = $1`, port)
	exec(`INSERT INTO posts(url, source_id, state) VALUES ('https://example.com/a', $1, 'indexed')`, port)
	postA := id(`SELECT id FROM posts WHERE url = 'https://example.com/a'`)
	exec(`INSERT INTO sitemap_urls(sitemap_id, post_id, lastmod, seen) VALUES ($1, $2, 0, 1)`, goneSitemap, postA)
	exec(`INSERT INTO posts(url, source_id, state) VALUES ('https://example.com/b', $1, 'pending')`, bare)
	postB := id(`SELECT id FROM posts WHERE url = 'https://example.com/b'`)
	exec(`UPDATE sources SET discovered = 7, sitemaps_checked = 8 WHERE id = $1`, port)
	// The punycode spelling is paused by its owner and discovered.
	exec(`UPDATE sources SET paused = 1, paused_by = 'owner', paused_at = 5, discovered = 9 WHERE id = $1`, puny)
	exec(`INSERT INTO feeds(source_id, url, state, catalogue) VALUES ($1, 'https://xn--bcher-kva.example/feed', 'active', 'none')`, puny)

	merges, err := s.IdentifySources(bg)
	must(t, err)
	want := []store.SourceMerge{
		{SourceID: port, URL: "https://example.com:443/#about", MergedInto: upper},
		{SourceID: bare, URL: "https://example.com", MergedInto: upper},
		{SourceID: puny, URL: "https://xn--bcher-kva.example", MergedInto: unicode},
		{SourceID: noSlash, URL: "https://other.example/blog", MergedInto: slash},
	}
	if len(merges) != len(want) {
		t.Fatalf("merges = %+v, want %+v", merges, want)
	}
	for i := range want {
		if merges[i] != want[i] {
			t.Errorf("merge %d = %+v, want %+v", i, merges[i], want[i])
		}
	}
	if n := id(`SELECT COUNT(*) FROM sources`); n != 4 {
		t.Errorf("%d sources left, want 4", n)
	}
	for src, wantURL := range map[int64]string{
		upper: "https://example.com/", unicode: "https://xn--bcher-kva.example/", slash: "https://other.example/blog/", apart: "http://example.com/",
	} {
		var u, ident string
		if err := w.QueryRowContext(bg, `SELECT url, ident FROM sources WHERE id = $1`, src).Scan(&u, &ident); err != nil {
			t.Fatalf("source %d: %v", src, err)
		}
		if u != wantURL || ident == "" {
			t.Errorf("source %d: url %q ident %q, want url %q and an identity", src, u, ident, wantURL)
		}
	}
	if n := id(`SELECT source_id FROM feeds WHERE id = $1`, feedID); n != upper {
		t.Errorf("example.com's feed is source %d's, want %d", n, upper)
	}
	if n := id(`SELECT COUNT(*) FROM sitemaps WHERE source_id = $1`, upper); n != 1 {
		t.Errorf("example.com has %d sitemaps, want 1 (the two merged)", n)
	}
	if n := id(`SELECT sitemap_id FROM sitemap_urls WHERE post_id = $1`, postA); n != keptSitemap {
		t.Errorf("post a is listed by sitemap %d, want %d", n, keptSitemap)
	}
	for _, p := range []int64{postA, postB} {
		if n := id(`SELECT source_id FROM posts WHERE id = $1`, p); n != upper {
			t.Errorf("post %d is source %d's, want %d", p, n, upper)
		}
	}
	if n := id(`SELECT discovered FROM sources WHERE id = $1`, upper); n != 7 {
		t.Errorf("example.com discovered = %d, want the duplicate's 7", n)
	}
	if n := id(`SELECT paused FROM sources WHERE id = $1`, unicode); n != 1 {
		t.Errorf("bücher.example paused = %d, want the duplicate's pause", n)
	}
	if n := id(`SELECT COUNT(*) FROM feeds WHERE source_id = $1`, unicode); n != 1 {
		t.Errorf("bücher.example has %d feeds, want 1", n)
	}
	// Every spelling now finds the survivor.
	for u, want := range map[string]int64{"https://EXAMPLE.com:443": upper, "https://bücher.example": unicode, "https://other.example/blog": slash} {
		src, isNew, err := s.AddSource(bg, u, T0)
		must(t, err)
		if isNew || src.ID != want {
			t.Errorf("AddSource(%q) after the merge = %d, new %v; want %d", u, src.ID, isNew, want)
		}
	}
	// Run again, it changes nothing.
	if merges, err := s.IdentifySources(bg); err != nil || len(merges) != 0 {
		t.Errorf("second run: %+v, %v", merges, err)
	}
}

// A source added by its feed's URL is the blog its feed names: it takes the
// homepage as its URL (found again by it), or is merged into the source of
// that homepage, with its feed.
func testFeedSource(t *testing.T, s *store.DB) {
	byFeed := source(t, s, "https://blog.example/feed/")
	f, err := s.AddFeed(bg, store.Feed{SourceID: byFeed.ID, URL: "https://blog.example/feed/"})
	must(t, err)
	byHome := source(t, s, "https://blog.example/")
	got, err := s.RehomeSource(bg, byFeed.ID, "https://Blog.Example")
	must(t, err)
	if got.ID != byHome.ID {
		t.Fatalf("RehomeSource = source %d, want the homepage's %d", got.ID, byHome.ID)
	}
	if _, err := s.Source(bg, byFeed.ID); err == nil {
		t.Error("the feed's source is still stored")
	}
	feeds, err := s.SourceFeeds(bg, byHome.ID)
	must(t, err)
	if len(feeds) != 1 || feeds[0].ID != f.ID {
		t.Errorf("homepage source feeds = %+v, want the feed %d", feeds, f.ID)
	}

	// Alone, it takes its homepage.
	solo := source(t, s, "https://solo.example/feed.xml")
	got, err = s.RehomeSource(bg, solo.ID, "https://solo.example")
	must(t, err)
	if got.ID != solo.ID || got.URL != "https://solo.example/" {
		t.Errorf("RehomeSource alone = %d %q, want %d https://solo.example/", got.ID, got.URL, solo.ID)
	}
	again, isNew, err := s.AddSource(bg, "https://SOLO.example/#top", T0)
	must(t, err)
	if isNew || again.ID != solo.ID {
		t.Errorf("homepage after its feed: source %d new %v, want %d known", again.ID, isNew, solo.ID)
	}

	// MergeSource: what another source found of the blog moves.
	other := source(t, s, "https://solo.example/feed.xml")
	_, err = s.AddFeed(bg, store.Feed{SourceID: other.ID, URL: "https://solo.example/comments-not/feed.xml"})
	must(t, err)
	must(t, s.MergeSource(bg, other.ID, solo.ID))
	feeds, err = s.SourceFeeds(bg, solo.ID)
	must(t, err)
	if len(feeds) != 1 {
		t.Errorf("after MergeSource, %d feeds, want 1", len(feeds))
	}
}
