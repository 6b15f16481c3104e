package extract_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/extract"
)

// TestMetadata: each metadata fixture gives exactly the fields it states,
// and nothing it does not.
func TestMetadata(t *testing.T) {
	type meta struct {
		author, published, modified, language, description, siteName, license, image string
		tags                                                                         []string
	}
	for name, want := range map[string]meta{
		// JSON-LD with an object @context, an @graph and @id references;
		// the article's date, not the web page's.
		"meta_jsonld_graph": {author: "Ann Gardener, Bob Digger", published: "2026-03-02T08:00:00Z", modified: "2026-03-04T17:30:00Z",
			language: "en", description: "Why the troughs still leak.", siteName: "Plot 14 Allotment Society",
			license: "https://creativecommons.org/licenses/by/4.0/", image: "https://plot14.example/img/trough.jpg",
			tags: []string{"allotments", "water"}},
		// Open Graph and meta tags; no declared language: detected.
		"meta_opengraph": {author: "Carla Spade", published: "2026-02-10T08:15:00Z", modified: "2026-02-11T10:00:00Z",
			language: "de", description: "Warum der Kompost dampft.", siteName: "Parzelle 14",
			license: "https://creativecommons.org/licenses/by-sa/4.0/deed.de", image: "https://blog.example/img/kompost.jpg",
			tags: []string{"Kompost", "Garten"}},
		// Parse.ly's page JSON beats the byline; lang="en" on French text
		// is overruled.
		"meta_parsely": {author: "Denise Bêche", published: "2026-04-05T07:00:00Z", language: "fr",
			tags: []string{"eau", "réunions", "jardins"}},
		// Only a byline and a <time>.
		"meta_byline": {author: "Ed Hoe", published: "2026-05-06T12:00:00Z", language: "en", tags: []string{}},
		// A page that states nothing has nothing but the language of its
		// text, which the detector is sure of.
		"short_post": {language: "en", tags: []string{}},
	} {
		t.Run(name, func(t *testing.T) {
			stem := filepath.Join("testdata", name)
			body, err := os.ReadFile(stem + ".html")
			if err != nil {
				t.Fatal(err)
			}
			p, err := extract.ParseResponse(body, fixtureURL(t, stem), fixtureContentType(t, stem), agent)
			if err != nil {
				t.Fatal(err)
			}
			got := meta{author: p.Author, published: rfc(p.Published), modified: rfc(p.Modified), language: p.Language,
				description: p.Description, siteName: p.SiteName, license: p.License, image: p.Image, tags: p.Tags}
			if !slices.Equal(got.tags, want.tags) || got.tags == nil {
				t.Errorf("tags %q, want %q", got.tags, want.tags)
			}
			got.tags, want.tags = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func rfc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}
