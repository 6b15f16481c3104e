package storetest

import (
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// A page re-extracted replaces the text, meta and duplicates of its post,
// says whether the record changed, and leaves the fetch's own fields (due,
// fetched, validators) as they were.
func testReextract(t *testing.T, s *store.DB) {
	src := source(t, s, "https://re.example/")
	first := addPost(t, s, src, "https://re.example/first", T0)
	second := addPost(t, s, src, "https://re.example/second", T0.Add(time.Hour))
	savePage(t, s, first, Article(1), store.Meta{})
	must(t, s.SavePage(bg, store.PageResult{PostID: second.ID, State: model.PostIndexed, Text: "wrong text", TextFrom: model.TextFromPage,
		Fetched: T0.Add(2 * time.Hour), ETag: `"v1"`, LastModified: "Sun, 01 Mar 2026 12:00:00 GMT"}))
	// Owed a fetch again (its feed said it changed): reextract must not clear that.
	_, err := s.AddPosts(bg, []store.NewPost{{URL: second.URL, SourceID: src.ID, Lastmod: T0.Add(48 * time.Hour), Seen: T0}})
	must(t, err)
	before, err := s.Post(bg, second.URL)
	must(t, err)

	r := store.PageResult{PostID: second.ID, State: model.PostIndexed, Text: Article(1), TextFrom: model.TextFromPage,
		Citations: []string{"https://elsewhere.example/a"}, Meta: store.Meta{Author: "Ana", Language: "pt", Tags: []string{"x"}}}
	changed, err := s.ReextractPage(bg, r)
	must(t, err)
	if !changed {
		t.Error("a new text: not reported as a change")
	}
	got, err := s.Post(bg, second.URL)
	must(t, err)
	if got.Text != Article(1) || got.Author != "Ana" || got.Language != "pt" || got.DuplicateOf != first.ID {
		t.Errorf("after reextract: text %.20q author %q language %q duplicate_of %d; want the article, Ana, pt, %d",
			got.Text, got.Author, got.Language, got.DuplicateOf, first.ID)
	}
	if got.Due != before.Due || !got.Fetched.Equal(before.Fetched) || got.ETag != before.ETag || got.LastModified != before.LastModified {
		t.Errorf("the fetch's fields changed: due %v fetched %v etag %q lm %q; were %v %v %q %q",
			got.Due, got.Fetched, got.ETag, got.LastModified, before.Due, before.Fetched, before.ETag, before.LastModified)
	}
	changed, err = s.ReextractPage(bg, r)
	must(t, err)
	if changed {
		t.Error("the same page again: reported as a change")
	}
	again, err := s.Post(bg, second.URL)
	must(t, err)
	if !again.Updated.Equal(got.Updated) {
		t.Errorf("updated moved from %v to %v without a change", got.Updated, again.Updated)
	}
	// noindex now: no text, no meta, nobody's duplicate.
	changed, err = s.ReextractPage(bg, store.PageResult{PostID: second.ID, State: model.PostNoindex, Meta: store.Meta{Author: "Ana"}})
	must(t, err)
	got, err = s.Post(bg, second.URL)
	must(t, err)
	if !changed || got.State != model.PostNoindex || got.Text != "" || got.Author != "" || got.DuplicateOf != 0 {
		t.Errorf("noindex: changed %v state %q text %q author %q dup %d", changed, got.State, got.Text, got.Author, got.DuplicateOf)
	}
	if _, err := s.ReextractPage(bg, store.PageResult{PostID: second.ID, State: model.PostRemoved}); err == nil {
		t.Error("state removed: no error")
	}
}
