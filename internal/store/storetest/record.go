package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/textsig"
)

// RunRecordSuite runs the post record's cases: its fields, its duplicates
// and its change stamps.
func RunRecordSuite(t *testing.T, newStore func(t *testing.T) *store.DB) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *store.DB)
	}{
		{"Fields", testRecordFields},
		{"Duplicates", testDuplicates},
		{"DuplicatesOrderFree", testDuplicatesOrderFree},
		{"Filters", testExportFilters},
		{"Cursor", testCursor},
		{"CursorErrors", testCursorErrors},
		{"Reextract", testReextract},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// Article is a text of about 120 words, different for each seed (and the
// same for the same seed), long enough for a MinHash.
func Article(seed int) string {
	words := []string{"river", "mountain", "bread", "lantern", "harbour", "violin", "garden", "engine", "winter", "letter",
		"market", "silver", "forest", "candle", "window", "island", "thunder", "meadow", "copper", "station"}
	var b strings.Builder
	for s := range 8 {
		if s > 0 {
			b.WriteString("\n\n")
		}
		for w := range 15 {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(seed*7+s*13+w*w*3+w*seed)%len(words)])
			fmt.Fprintf(&b, "%d", (seed*31+s*5+w)%97)
		}
		b.WriteByte('.')
	}
	return b.String()
}

// addPost adds the post at u of src and returns it.
func addPost(t *testing.T, s *store.DB, src store.Source, u string, seen time.Time) store.Post {
	t.Helper()
	_, err := s.AddPosts(bg, []store.NewPost{{URL: u, SourceID: src.ID, Seen: seen}})
	must(t, err)
	p, err := s.Post(bg, u)
	must(t, err)
	return p
}

// savePage stores an indexed page of the post with text and meta.
func savePage(t *testing.T, s *store.DB, p store.Post, text string, meta store.Meta) {
	t.Helper()
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: text, TextFrom: model.TextFromPage, Fetched: T0, Meta: meta}))
}

func exported(t *testing.T, s *store.DB, f store.ExportFilter) map[string]store.Post {
	t.Helper()
	out := map[string]store.Post{}
	must(t, s.ExportPosts(bg, f, func(p store.Post) error { out[p.URL] = p; return nil }))
	return out
}

func keys(m map[string]store.Post) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// What a page and a full-content feed say of a post is its record; a page
// without text (noindex) says nothing, and its record forgets it.
func testRecordFields(t *testing.T, s *store.DB) {
	src := source(t, s, "https://rec.example/")
	meta := store.Meta{Author: "Anna Schmidt", Language: "de", Description: "Über Berge", SiteName: "Rec", Tags: []string{"Reisen", "Berge"},
		License: "https://creativecommons.org/licenses/by/4.0/", Image: "https://rec.example/i.jpg"}
	p := addPost(t, s, src, "https://rec.example/page", T0)
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "Text", TextFrom: model.TextFromPage, Fetched: T0,
		Meta: meta, Modified: T0.Add(time.Hour)}))
	_, err := s.AddPosts(bg, []store.NewPost{{URL: "https://rec.example/feed", SourceID: src.ID, Text: "Feed text", Seen: T0,
		Meta: store.Meta{Author: "Jo", Language: "en", Tags: []string{"a"}}}})
	must(t, err)

	got, err := s.Post(bg, "https://rec.example/page")
	must(t, err)
	if !reflect.DeepEqual(got.Meta, meta) || !got.Lastmod.Equal(T0.Add(time.Hour)) || got.Updated.IsZero() {
		t.Errorf("page record: %+v, lastmod %v, updated %v", got.Meta, got.Lastmod, got.Updated)
	}
	f, err := s.Post(bg, "https://rec.example/feed")
	must(t, err)
	if f.Author != "Jo" || f.Language != "en" || !slices.Equal(f.Tags, []string{"a"}) || f.Updated.IsZero() {
		t.Errorf("feed record: %+v", f.Meta)
	}

	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostNoindex, Fetched: T0, Meta: meta}))
	got, err = s.Post(bg, "https://rec.example/page")
	must(t, err)
	if !reflect.DeepEqual(got.Meta, store.Meta{Tags: []string{}}) {
		t.Errorf("noindex record kept %+v", got.Meta)
	}
}

// A text an earlier post holds, exactly or nearly, on any site, makes the
// later post its duplicate; an unrelated text does not. A re-extracted text
// decides again. When the earlier post is removed its duplicates still
// point to it (its record and text are kept); a post stored later with the
// text points to the earliest one still indexed.
func testDuplicates(t *testing.T, s *store.DB) {
	a := source(t, s, "https://first.example/")
	b := source(t, s, "https://second.example/")
	text := Article(1)
	near := strings.Replace(text, ".", ". An added sentence here.", 1)
	orig := addPost(t, s, a, "https://first.example/orig", T0)
	savePage(t, s, orig, text, store.Meta{})
	copyP := addPost(t, s, b, "https://second.example/copy", T0.Add(time.Hour))
	savePage(t, s, copyP, text, store.Meta{})
	nearP := addPost(t, s, b, "https://second.example/near", T0.Add(2*time.Hour))
	savePage(t, s, nearP, near, store.Meta{})
	other := addPost(t, s, b, "https://second.example/other", T0.Add(3*time.Hour))
	savePage(t, s, other, Article(2), store.Meta{})
	// Seen before the others but stored last: the others become its.
	early := addPost(t, s, b, "https://second.example/early", T0.Add(-time.Hour))

	dups := func() map[string]string {
		out := map[string]string{}
		for u, p := range exported(t, s, store.ExportFilter{}) {
			out[u] = p.DuplicateURL
		}
		return out
	}
	want := map[string]string{"https://first.example/orig": "", "https://second.example/copy": "https://first.example/orig",
		"https://second.example/near": "https://first.example/orig", "https://second.example/other": "", "https://second.example/early": ""}
	if got := dups(); !reflect.DeepEqual(got, want) {
		t.Errorf("duplicates:\n got %v\nwant %v", got, want)
	}
	unique := exported(t, s, store.ExportFilter{Unique: true})
	if got := keys(unique); !slices.Equal(got, []string{"https://first.example/orig", "https://second.example/early", "https://second.example/other"}) {
		t.Errorf("unique: %v", got)
	}

	// The copy re-extracted as another text: no longer a duplicate.
	savePage(t, s, copyP, Article(3), store.Meta{})
	if got := dups()["https://second.example/copy"]; got != "" {
		t.Errorf("re-extracted copy: duplicate of %q", got)
	}

	savePage(t, s, early, text, store.Meta{})
	want = map[string]string{"https://first.example/orig": "https://second.example/early", "https://second.example/copy": "",
		"https://second.example/near": "https://second.example/early", "https://second.example/other": "", "https://second.example/early": ""}
	if got := dups(); !reflect.DeepEqual(got, want) {
		t.Errorf("after an earlier post took the text:\n got %v\nwant %v", got, want)
	}

	// The original removed: its duplicates keep pointing to it; a new
	// copy points to the earliest holder still indexed.
	must(t, s.SavePage(bg, store.PageResult{PostID: early.ID, State: model.PostRemoved, Text: text, TextFrom: model.TextFromPage, Fetched: T0}))
	late := addPost(t, s, a, "https://first.example/late", T0.Add(5*time.Hour))
	savePage(t, s, late, text, store.Meta{})
	got := dups()
	if got["https://first.example/orig"] != "https://second.example/early" || got["https://first.example/late"] != "https://first.example/orig" ||
		got["https://second.example/near"] != "https://second.example/early" {
		t.Errorf("after the original was removed: %v", got)
	}
}

// A chain of near copies (B a copy of A, C a copy of B, C too far from A:
// nearness is not transitive) gives each post the earliest holder of its
// text before it, whatever order their pages are saved in: here A, C, B,
// so that B, itself A's duplicate, takes C. Saving every page again
// changes nothing.
func testDuplicatesOrderFree(t *testing.T, s *store.DB) {
	src := source(t, s, "https://chain.example/")
	words := strings.Fields(strings.Repeat(Article(7)+" "+Article(8)+" "+Article(9)+" ", 1))
	block := func(ws []string, from int, tag string) []string {
		out := slices.Clone(ws)
		for i := from; i < from+len(ws)/10; i++ {
			out[i] = fmt.Sprintf("%s%d", tag, i)
		}
		return out
	}
	textA := strings.Join(words, " ")
	wordsB := block(words, 0, "bee")
	textB := strings.Join(wordsB, " ")
	textC := strings.Join(block(wordsB, len(words)/2, "sea"), " ")
	ma, mb, mc := textsig.Of(textA).MinHash, textsig.Of(textB).MinHash, textsig.Of(textC).MinHash
	if !textsig.Near(ma, mb) || !textsig.Near(mb, mc) || textsig.Near(ma, mc) {
		t.Fatalf("the texts are not a chain: A~B %.2f, B~C %.2f, A~C %.2f",
			textsig.Similarity(ma, mb), textsig.Similarity(mb, mc), textsig.Similarity(ma, mc))
	}
	pa := addPost(t, s, src, "https://chain.example/a", T0)
	pb := addPost(t, s, src, "https://chain.example/b", T0.Add(time.Hour))
	pc := addPost(t, s, src, "https://chain.example/c", T0.Add(2*time.Hour))
	want := map[string]string{"https://chain.example/a": "", "https://chain.example/b": "https://chain.example/a",
		"https://chain.example/c": "https://chain.example/b"}
	check := func(when string) {
		t.Helper()
		got := map[string]string{}
		for u, p := range exported(t, s, store.ExportFilter{}) {
			got[u] = p.DuplicateURL
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", when, got, want)
		}
	}
	savePage(t, s, pa, textA, store.Meta{})
	savePage(t, s, pc, textC, store.Meta{})
	savePage(t, s, pb, textB, store.Meta{})
	check("saved A, C, B")
	for _, p := range []struct {
		post store.Post
		text string
	}{{pc, textC}, {pa, textA}, {pb, textB}} {
		savePage(t, s, p.post, p.text, store.Meta{})
	}
	check("saved again")
}

// Each filter selects by the record.
func testExportFilters(t *testing.T, s *store.DB) {
	a := source(t, s, "https://www.filter.example/")
	b := source(t, s, "https://other.example/")
	de := addPost(t, s, a, "https://www.filter.example/de", T0)
	savePage(t, s, de, Article(10), store.Meta{Language: "de"})
	fr := addPost(t, s, b, "https://other.example/fr", T0)
	savePage(t, s, fr, Article(11), store.Meta{Language: "fr"})
	addPost(t, s, b, "https://other.example/pending", T0)
	for _, tc := range []struct {
		f    store.ExportFilter
		want []string
	}{
		{store.ExportFilter{}, []string{"https://other.example/fr", "https://other.example/pending", "https://www.filter.example/de"}},
		{store.ExportFilter{States: []string{model.PostPending}}, []string{"https://other.example/pending"}},
		{store.ExportFilter{States: []string{model.PostPending, model.PostIndexed}, Site: "other.example"}, []string{"https://other.example/fr", "https://other.example/pending"}},
		{store.ExportFilter{Site: "filter.example"}, []string{"https://www.filter.example/de"}},
		{store.ExportFilter{Languages: []string{"de", "en"}}, []string{"https://www.filter.example/de"}},
		{store.ExportFilter{Site: "nowhere.example"}, nil},
	} {
		if got := keys(exported(t, s, tc.f)); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.f, got, tc.want)
		}
	}
}

// After a cursor, exactly the posts whose record changed: new, re-extracted,
// removed, newly a duplicate, in another state; not those whose fetch
// bookkeeping alone changed.
func testCursor(t *testing.T, s *store.DB) {
	src := source(t, s, "https://cur.example/")
	other := source(t, s, "https://cur2.example/")
	var posts []store.Post
	for i := range 6 {
		p := addPost(t, s, src, fmt.Sprintf("https://cur.example/%d", i), T0)
		savePage(t, s, p, Article(20+i), store.Meta{})
		posts = append(posts, p)
	}
	dupOf := addPost(t, s, other, "https://cur2.example/later", T0.Add(time.Hour))
	c, err := s.Cursor(bg)
	must(t, err)
	if got := keys(exported(t, s, store.ExportFilter{Since: c})); len(got) != 0 {
		t.Fatalf("nothing changed, yet %v", got)
	}
	savePage(t, s, posts[0], Article(99), store.Meta{})                                                                      // re-extracted
	must(t, s.SavePage(bg, store.PageResult{PostID: posts[1].ID, State: model.PostRemoved, Text: Article(21), Fetched: T0})) // removed
	must(t, s.SavePage(bg, store.PageResult{PostID: posts[2].ID, State: model.PostError, Fetched: T0}))                      // another state
	must(t, s.SavePage(bg, store.PageResult{PostID: posts[3].ID, Keep: true, Fetched: T0.Add(time.Hour)}))                   // a 304: no change
	savePage(t, s, posts[4], Article(24), store.Meta{})                                                                      // the same page again: no change
	savePage(t, s, dupOf, Article(25), store.Meta{})                                                                         // a new text, newly a duplicate
	addPost(t, s, src, "https://cur.example/new", T0)                                                                        // new
	want := []string{"https://cur.example/0", "https://cur.example/1", "https://cur.example/2", "https://cur.example/new", "https://cur2.example/later"}
	got := exported(t, s, store.ExportFilter{Since: c})
	if !slices.Equal(keys(got), want) {
		t.Errorf("since the cursor: %v, want %v", keys(got), want)
	}
	if got["https://cur2.example/later"].DuplicateURL != "https://cur.example/5" {
		t.Errorf("the new duplicate: %+v", got["https://cur2.example/later"].DuplicateURL)
	}
	c2, err := s.Cursor(bg)
	must(t, err)
	if got := keys(exported(t, s, store.ExportFilter{Since: c2})); len(got) != 0 {
		t.Errorf("nothing changed after the second cursor, yet %v", got)
	}
}

// A malformed cursor, or one of another database, is refused.
func testCursorErrors(t *testing.T, s *store.DB) {
	c, err := s.Cursor(bg)
	must(t, err)
	must(t, s.CheckCursor(bg, c))
	id, pos, _ := strings.Cut(strings.TrimPrefix(c, "c1."), ".")
	for _, bad := range []string{"", "x", "c1.", "c1." + id, "c1." + id + ".", "c1." + id + ".abc", "c1." + id + "." + pos + "x",
		"c1.0123456789abcdef0123456789abcdef." + pos, "c2." + id + "." + pos} {
		err := s.CheckCursor(bg, bad)
		if !errors.Is(err, store.ErrCursor) {
			t.Errorf("cursor %q: %v, want ErrCursor", bad, err)
		}
		if bad == "" {
			continue // no cursor: every post
		}
		if err := s.ExportPosts(bg, store.ExportFilter{Since: bad}, func(store.Post) error { return nil }); !errors.Is(err, store.ErrCursor) {
			t.Errorf("export since %q: %v", bad, err)
		}
	}
}
