package storetest

import (
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/urlkey"
)

// A post's first-seen date is the time of the read that inserted its
// row, whichever path inserted it; no later read changes it, and when
// two records of one post merge the earlier date stays (an unknown one,
// zero, never wins).
func testFirstSeen(t *testing.T, s *store.DB) {
	src := source(t, s, "https://seen.example/")
	at := func(h int) time.Time { return T0.Add(time.Duration(h) * time.Hour) }
	firstSeen := func(u string) time.Time {
		t.Helper()
		p, err := s.Post(bg, u)
		must(t, err)
		return p.FirstSeen
	}

	// From a feed, then named again, modified, by a feed and a sitemap.
	_, err := s.AddPosts(bg, []store.NewPost{{URL: "https://seen.example/feed", SourceID: src.ID, Lastmod: at(0), Seen: at(1)},
		{URL: "https://seen.example/full", SourceID: src.ID, Text: "full text", Seen: at(1)}})
	must(t, err)
	res, err := s.AddPosts(bg, []store.NewPost{{URL: "https://seen.example/feed", SourceID: src.ID, Lastmod: at(5), Seen: at(6)}})
	must(t, err)
	if res.Modified != 1 {
		t.Fatalf("re-add: %+v, want a modified post", res)
	}
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://seen.example/sitemap.xml"})
	must(t, err)
	_, err = s.IngestSitemap(bg, sm, at(7), []store.SitemapURL{{Loc: "https://seen.example/feed", Lastmod: at(7)}, {Loc: "https://seen.example/listed"}}, true)
	must(t, err)
	_, err = s.IngestSitemap(bg, sm, at(9), []store.SitemapURL{{Loc: "https://seen.example/feed", Lastmod: at(8)}, {Loc: "https://seen.example/listed", Lastmod: at(8)}}, true)
	must(t, err)
	for u, want := range map[string]time.Time{"https://seen.example/feed": at(1), "https://seen.example/full": at(1), "https://seen.example/listed": at(7)} {
		if got := firstSeen(u); !got.Equal(want) {
			t.Errorf("%s first seen %v, want %v", u, got, want)
		}
	}
	// A fetch changes nothing of it.
	p, err := s.Post(bg, "https://seen.example/listed")
	must(t, err)
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: "indexed", Text: "page", TextFrom: "page", Fetched: at(10)}))
	if got := firstSeen("https://seen.example/listed"); !got.Equal(at(7)) {
		t.Errorf("fetched post first seen %v, want %v", got, at(7))
	}

	// Merges: the survivor (the spelling the site shows, https) was seen
	// later than the variant folded into it, or has no date while the
	// variant has one, or has one while the variant has none.
	cases := []struct {
		path              string
		survivor, variant time.Time
		want              time.Time
	}{
		{"/later", at(20), at(11), at(11)},
		{"/unknown", time.Time{}, at(12), at(12)},
		{"/known", at(13), time.Time{}, at(13)},
		{"/earlier", at(14), at(15), at(14)},
	}
	for _, c := range cases {
		_, err := s.AddPosts(bg, []store.NewPost{{URL: "http://seen.example" + c.path, SourceID: src.ID, Seen: c.variant},
			{URL: "https://seen.example" + c.path, SourceID: src.ID, Seen: c.survivor}})
		must(t, err)
	}
	n, err := s.LearnSpelling(bg, "https://seen.example/later", urlkey.Scheme)
	must(t, err)
	if n != len(cases) {
		t.Fatalf("LearnSpelling folded %d posts, want %d", n, len(cases))
	}
	for _, c := range cases {
		if got := firstSeen("https://seen.example" + c.path); !got.Equal(c.want) {
			t.Errorf("merged %s first seen %v, want %v", c.path, got, c.want)
		}
	}
}
