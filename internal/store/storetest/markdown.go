package storetest

import (
	"testing"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// The text's Markdown form is stored with the text (SavePage and
// ReextractPage), given by ExportPosts only when asked for, kept by a
// removed post, cleared with the text, and no change to the record of its
// own (the change stamps follow the text, which it follows).
func testMarkdown(t *testing.T, s *store.DB) {
	src := source(t, s, "https://md.example/")
	p := addPost(t, s, src, "https://md.example/a", T0)
	old := addPost(t, s, src, "https://md.example/old", T0)
	savePage(t, s, old, "Stored before the extractor kept Markdown.", store.Meta{}) // no Markdown: ''
	const text, md = "Notes\n\nOne item", "## Notes\n\n- One item"
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: text, Markdown: md, TextFrom: model.TextFromPage, Fetched: T0}))
	read := func(f store.ExportFilter) map[string]store.Post { return exported(t, s, f) }
	got := read(store.ExportFilter{Markdown: true})
	if got[p.URL].Markdown != md || got[p.URL].Text != text || got[old.URL].Markdown != "" {
		t.Errorf("saved: markdown %q text %q, old post's markdown %q", got[p.URL].Markdown, got[p.URL].Text, got[old.URL].Markdown)
	}
	if m := read(store.ExportFilter{})[p.URL].Markdown; m != "" {
		t.Errorf("markdown read without being asked for: %q", m)
	}
	cursor, err := s.Cursor(bg)
	must(t, err)

	// Re-extracted: the old post gains its Markdown, the text the same, so
	// its record is unchanged; a new text brings a new Markdown.
	changed, err := s.ReextractPage(bg, store.PageResult{PostID: old.ID, State: model.PostIndexed, Text: "Stored before the extractor kept Markdown.",
		Markdown: "Stored before the extractor kept Markdown\\.", TextFrom: model.TextFromPage})
	must(t, err)
	if changed {
		t.Error("only the Markdown filled in: reported as a change to the record")
	}
	if m := read(store.ExportFilter{Markdown: true})[old.URL].Markdown; m != "Stored before the extractor kept Markdown\\." {
		t.Errorf("reextracted: markdown %q", m)
	}
	if since := read(store.ExportFilter{Since: cursor}); len(since) != 0 {
		t.Errorf("changed since the cursor: %v", keys(since))
	}
	const md2 = "# Notes\n\n1. One item"
	changed, err = s.ReextractPage(bg, store.PageResult{PostID: p.ID, State: model.PostIndexed, Text: "Notes\n\nOne item, mended", Markdown: md2, TextFrom: model.TextFromPage})
	must(t, err)
	if got := read(store.ExportFilter{Markdown: true, Since: cursor}); !changed || got[p.URL].Markdown != md2 {
		t.Errorf("a new text: changed %v, markdown since the cursor %q", changed, got[p.URL].Markdown)
	}

	// Removed: the record keeps its text and its Markdown; noindex clears both.
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostRemoved, Text: "Notes\n\nOne item, mended", TextFrom: model.TextFromPage, Fetched: T0}))
	if m := read(store.ExportFilter{Markdown: true})[p.URL].Markdown; m != md2 {
		t.Errorf("removed: markdown %q, want it kept", m)
	}
	must(t, s.SavePage(bg, store.PageResult{PostID: p.ID, State: model.PostNoindex, Fetched: T0}))
	if m := read(store.ExportFilter{Markdown: true})[p.URL].Markdown; m != "" {
		t.Errorf("noindex: markdown %q", m)
	}
}
