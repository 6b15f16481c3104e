package crawl

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/internal/store"
)

func TestFeedLanguage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"de", "de"}, {"de-DE", "de"}, {"en_US", "en"}, {" fr ", "fr"}, {"", ""}, {"xx-YY", ""}, {"und", ""}, {"not a tag", ""},
	} {
		if got := feedLanguage(tc.in); got != tc.want {
			t.Errorf("feedLanguage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A full-content entry's author, categories and language go with its
// text; an excerpt's do not (the page will say).
func TestNewPostsCarryTheFeedsRecord(t *testing.T) {
	full := "<p>" + strings.Repeat("Ein ganzer Beitrag. ", 40) + "</p>"
	f := &feed.Feed{Entries: []feed.Entry{
		{Link: "https://a.example/1", Content: full, FullContent: true, Author: "Anna", Categories: []string{"Reisen"}, Language: "de-AT"},
		{Link: "https://a.example/2", Content: "<p>Kurz</p>", Author: "Anna", Categories: []string{"Reisen"}, Language: "de"},
	}}
	got := newPosts(1, f, time.Unix(0, 0))
	if len(got) != 2 {
		t.Fatalf("%d posts", len(got))
	}
	if want := (store.Meta{Author: "Anna", Language: "de", Tags: []string{"Reisen"}}); !reflect.DeepEqual(got[0].Meta, want) {
		t.Errorf("full entry: %+v, want %+v", got[0].Meta, want)
	}
	if !reflect.DeepEqual(got[1].Meta, store.Meta{}) {
		t.Errorf("excerpt: %+v, want nothing", got[1].Meta)
	}
}
