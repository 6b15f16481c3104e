package storetest

import (
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/sourcelist"
	"corpus.blog/corpusbot/internal/store"
)

// No URL with user information is stored: AddSource refuses one, and the
// scrub takes it out of a database that holds some (stored before the
// refusal) — the sources, the feeds, sitemaps and posts derived from them,
// the request log and the aliases — folding a source into another that has
// its URL already, deterministically (the lower ID stays).
func testCredentials(t *testing.T, s *store.DB) {
	if _, _, err := s.AddSource(bg, "http://u:s3cret@refused.example/", T0); !errors.Is(err, sourcelist.ErrUserinfo) || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("AddSource with a password: %v, want ErrUserinfo without the password", err)
	}
	if _, _, err := s.AddSource(bg, "http://@refused.example/", T0); !errors.Is(err, sourcelist.ErrUserinfo) {
		t.Fatalf("AddSource with an empty user: %v, want ErrUserinfo", err)
	}
	if _, _, err := s.AddSource(bg, "http://refused.example:0/", T0); err == nil {
		t.Fatal("AddSource with port 0 accepted")
	}

	w := s.Writer()
	exec, id, addRaw := rawRows(t, w)
	feed := func(src int64, u string) int64 {
		t.Helper()
		exec(`INSERT INTO feeds(source_id, url, state, catalogue) VALUES ($1, $2, 'active', 'none')`, src, u)
		return id(`SELECT id FROM feeds WHERE url = $1`, u)
	}

	// A source with a password and everything resolved against it.
	alice := addRaw("http://alice:s3cret@creds.example/", "creds.example")
	aliceFeed := feed(alice, "http://alice:s3cret@creds.example/feed")
	exec(`UPDATE feeds SET next_page = 'http://alice:s3cret@creds.example/feed?page=2', error = 'fetch http://alice:***@creds.example/feed: status 500' WHERE id = $1`, aliceFeed)
	exec(`INSERT INTO sitemaps(source_id, url, via, state) VALUES ($1, 'http://alice:s3cret@creds.example/sitemap.xml', 'well-known', 'active')`, alice)
	exec(`INSERT INTO posts(url, source_id, state, error) VALUES ('http://creds.example/p1', $1, 'pending', 'fetch "http://alice:s3cret@creds.example/p1": status 503')`, alice)
	p1 := id(`SELECT id FROM posts WHERE url = 'http://creds.example/p1'`)
	exec(`INSERT INTO url_aliases(kind, url, target) VALUES ('post', 'http://alice:s3cret@creds.example/p1?old', $1)`, p1)
	exec(`INSERT INTO requests(site, url, purpose, status, bytes, start, duration, conditional, outcome, error)
		VALUES ('creds.example', 'http://alice:s3cret@creds.example/feed', 'feed', 200, 10, 1, 1, FALSE, 'fetched', ''),
		       ('creds.example', 'http://creds.example/robots.txt', 'robots', 404, 0, 1, 1, FALSE, 'status', ''),
		       ('other.example', 'https://other.example/@name', 'page', 200, 10, 1, 1, FALSE, 'fetched', '')`)

	// The same site added twice: first without a password, then with one.
	dup := source(t, s, "https://dup.example/")
	dupFeed := feed(dup.ID, "https://dup.example/feed")
	exec(`INSERT INTO sitemaps(source_id, url, via, state) VALUES ($1, 'https://dup.example/sitemap.xml', 'robots', 'active')`, dup.ID)
	dupSitemap := id(`SELECT id FROM sitemaps WHERE source_id = $1`, dup.ID)
	bob := addRaw("https://bob:pw@dup.example/", "dup.example")
	exec(`UPDATE sources SET paused = 1, paused_by = 'owner@dup.example', paused_at = 7 WHERE id = $1`, bob)
	bobSameFeed := feed(bob, "https://bob:pw@dup.example/feed")
	bobOtherFeed := feed(bob, "https://bob:pw@dup.example/other.xml")
	exec(`INSERT INTO url_aliases(kind, url, target) VALUES ('feed', 'https://dup.example/old-feed', $1)`, bobSameFeed)
	exec(`INSERT INTO sitemaps(source_id, url, via, state) VALUES ($1, 'https://bob:pw@dup.example/sitemap.xml', 'well-known', 'active')`, bob)
	bobSitemap := id(`SELECT id FROM sitemaps WHERE source_id = $1`, bob)
	exec(`INSERT INTO posts(url, source_id, state) VALUES ('https://dup.example/a', $1, 'pending')`, bob)
	postA := id(`SELECT id FROM posts WHERE url = 'https://dup.example/a'`)
	exec(`INSERT INTO sitemap_urls(sitemap_id, post_id, lastmod, seen) VALUES ($1, $2, 0, 1)`, bobSitemap, postA)

	// Two passwords for one site, a clean source whose feed has one, and
	// an "@" that is a path, not user information.
	x := addRaw("http://x:1@twice.example/", "twice.example")
	y := addRaw("http://y:2@twice.example/", "twice.example")
	// A password added first, the bare URL later: the bare one, already
	// stored under the URL, keeps its record.
	zed := addRaw("http://zed:9@late.example/", "late.example")
	late := source(t, s, "http://late.example/")
	carol := source(t, s, "https://feedonly.example/")
	carolFeed := feed(carol.ID, "https://carol:pw@feedonly.example/rss")
	medium := source(t, s, "https://medium.example/@writer")

	fixes, err := s.ScrubCredentials(bg)
	must(t, err)
	want := []store.CredentialFix{
		{SourceID: alice, URL: "http://creds.example/", Source: true, Feeds: 1, Sitemaps: 1, Posts: 1, Requests: 1},
		{SourceID: bob, URL: "https://dup.example/", MergedInto: dup.ID, Source: true, Feeds: 2, Sitemaps: 1},
		{SourceID: x, URL: "http://twice.example/", Source: true},
		{SourceID: y, URL: "http://twice.example/", MergedInto: x, Source: true},
		{SourceID: zed, URL: "http://late.example/", MergedInto: late.ID, Source: true},
		{SourceID: carol.ID, URL: "https://feedonly.example/", Feeds: 1},
	}
	if !slices.Equal(fixes, want) {
		t.Errorf("fixes:\n%+v\nwant:\n%+v", fixes, want)
	}

	// Nothing stored holds user information any more.
	for _, q := range []string{
		`SELECT url FROM sources`, `SELECT url FROM feeds`, `SELECT next_page FROM feeds`, `SELECT error FROM feeds`,
		`SELECT url FROM sitemaps`, `SELECT url FROM posts`, `SELECT error FROM posts`, `SELECT url FROM requests`,
		`SELECT url FROM url_aliases`,
	} {
		rows, err := w.QueryContext(bg, q)
		must(t, err)
		for rows.Next() {
			var v string
			must(t, rows.Scan(&v))
			if strings.Contains(v, "s3cret") || strings.Contains(v, "***") || strings.Contains(v, ":pw@") || strings.Contains(v, "@twice") || strings.Contains(v, "@late") {
				t.Errorf("%s: %q still has user information", q, v)
			}
		}
		must(t, rows.Err())
		rows.Close()
	}
	var urls []string
	must(t, s.EachSource(bg, func(src store.Source) error { urls = append(urls, src.URL); return nil }))
	slices.Sort(urls)
	wantURLs := []string{"http://creds.example/", "http://late.example/", "http://twice.example/", "https://dup.example/", "https://feedonly.example/", "https://medium.example/@writer"}
	if !slices.Equal(urls, wantURLs) {
		t.Errorf("sources %q, want %q", urls, wantURLs)
	}
	if src, err := s.Source(bg, medium.ID); err != nil || src.URL != "https://medium.example/@writer" {
		t.Errorf("source with an @ in its path: %+v, %v", src, err)
	}

	// The merge: bob's feed that dup had already is gone into dup's (with
	// its alias), the other moved; the sitemap merged with its listing;
	// the post moved; the owner's pause kept.
	if n := id(`SELECT COUNT(*) FROM feeds WHERE id = $1`, bobSameFeed); n != 0 {
		t.Error("the duplicate feed was not merged")
	}
	if n := id(`SELECT target FROM url_aliases WHERE kind = 'feed' AND url = 'https://dup.example/old-feed'`); n != dupFeed {
		t.Errorf("feed alias points to %d, want %d", n, dupFeed)
	}
	if n := id(`SELECT source_id FROM feeds WHERE id = $1`, bobOtherFeed); n != dup.ID {
		t.Errorf("other feed of the merged source belongs to %d, want %d", n, dup.ID)
	}
	if n := id(`SELECT COUNT(*) FROM sitemap_urls WHERE sitemap_id = $1 AND post_id = $2`, dupSitemap, postA); n != 1 {
		t.Error("the merged sitemap's listing did not move")
	}
	if n := id(`SELECT COUNT(*) FROM sitemaps WHERE source_id = $1`, dup.ID); n != 1 {
		t.Errorf("%d sitemaps on the surviving source, want 1", n)
	}
	if n := id(`SELECT source_id FROM posts WHERE id = $1`, postA); n != dup.ID {
		t.Errorf("post of the merged source belongs to %d, want %d", n, dup.ID)
	}
	if n := id(`SELECT paused FROM sources WHERE id = $1`, dup.ID); n != 1 {
		t.Error("the merged source's pause was lost")
	}
	if n := id(`SELECT COUNT(*) FROM sources WHERE id IN ($1, $2, $3)`, bob, y, zed); n != 0 {
		t.Errorf("%d merged sources left", n)
	}
	// What was not user information is left as it was.
	if n := id(`SELECT COUNT(*) FROM requests WHERE url = 'https://other.example/@name'`); n != 1 {
		t.Error("a request URL with an @ in its path was changed")
	}
	var next, feedErr string
	must(t, w.QueryRowContext(bg, `SELECT next_page, error FROM feeds WHERE id = $1`, aliceFeed).Scan(&next, &feedErr))
	if next != "http://creds.example/feed?page=2" || feedErr != "fetch http://creds.example/feed: status 500" {
		t.Errorf("feed next page %q, error %q", next, feedErr)
	}
	if u := func() string {
		var u string
		must(t, w.QueryRowContext(bg, `SELECT url FROM feeds WHERE id = $1`, carolFeed).Scan(&u))
		return u
	}(); u != "https://feedonly.example/rss" {
		t.Errorf("feed of a clean source: %q", u)
	}
	if p, err := s.Post(bg, "http://creds.example/p1?old"); err != nil || p.ID != p1 {
		t.Errorf("scrubbed alias: %+v, %v", p, err)
	}

	// A feed or sitemap a site names with user information is stored
	// without it.
	f, err := s.AddFeed(bg, store.Feed{SourceID: carol.ID, URL: "https://dave:pw@feedonly.example/atom"})
	must(t, err)
	if f.URL != "https://feedonly.example/atom" {
		t.Errorf("AddFeed stored %q", f.URL)
	}
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: carol.ID, URL: "https://dave:pw@feedonly.example/sitemap.xml", Via: "robots"})
	must(t, err)
	if sm.URL != "https://feedonly.example/sitemap.xml" {
		t.Errorf("AddSitemap stored %q", sm.URL)
	}

	// Once scrubbed, there is nothing left to do.
	again, err := s.ScrubCredentials(bg)
	must(t, err)
	if len(again) != 0 {
		t.Errorf("second scrub changed %+v", again)
	}
}

// rawRows writes and reads rows past the store's rules, as an older
// version stored them: exec runs a statement, id reads one number, and
// addRaw inserts a source with its URL as given (no identity, no checks).
func rawRows(t *testing.T, w *sql.DB) (exec func(q string, args ...any), id func(q string, args ...any) int64, addRaw func(u, site string) int64) {
	exec = func(q string, args ...any) {
		t.Helper()
		if _, err := w.ExecContext(bg, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	id = func(q string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := w.QueryRowContext(bg, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s %v: %v", q, args, err)
		}
		return n
	}
	addRaw = func(u, site string) int64 {
		t.Helper()
		exec(`INSERT INTO sources(url, added, site) VALUES ($1, 1, $2)`, u, site)
		return id(`SELECT id FROM sources WHERE url = $1`, u)
	}
	return exec, id, addRaw
}
