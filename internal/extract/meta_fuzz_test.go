package extract

import (
	"net/url"
	"testing"
	"unicode/utf8"
)

// FuzzMetadata holds, over arbitrary JSON-LD, Parse.ly JSON, language tags
// and bylines: no panic; every field valid UTF-8 and bounded; URLs absolute
// http(s) or empty; tags distinct and never nil; a language is "" or a
// two- or three-letter code.
func FuzzMetadata(f *testing.F) {
	f.Add(`{"@context":{"@vocab":"https://schema.org/"},"@graph":[{"@type":"Person","@id":"p","name":"A"},{"@type":"NewsArticle","author":{"@id":"p"},"keywords":"a, b","image":[{"url":"/i.jpg"}],"license":{"@id":"https://l/"}}]}`,
		`{"author":["x",{"name":"y"}],"pub_date":"2026-01-01","tags":["t"]}`, "en_US", "By Jane Doe", "some text in English, long enough")
	f.Add(`[{"@type":["Thing","BlogPosting"],"author":[[[[[["deep"]]]]]],"publisher":"P","datePublished":["2026"]}]`, `{`, "zh-Hant-TW, en", "BY ", "")
	f.Add(`{"@graph":[{"@id":"a","author":{"@id":"a"}},{"@type":"Article","author":{"@id":"a"}}]}`, `null`, "i-klingon", "<b>", "")
	base, _ := url.Parse("https://h.example/a/")
	f.Fuzz(func(t *testing.T, ld, parselyJSON, lang, by, text string) {
		ldf := readJSONLD([]string{ld, ld})
		fa := &facts{meta: map[string]string{"parsely-page": parselyJSON, "og:locale": lang, "og:image": ld, "description": by},
			itemprop: map[string]string{}, tags: []string{by, by, lang}, lang: lang, byline: by, license: text}
		var p Page
		declared := p.metadata(fa, ldf, base, readabilityFacts{byline: by, siteName: text})
		p.Language = detectLanguage(declared, text)
		for _, s := range []string{p.Author, p.Description, p.SiteName, p.License, p.Image, p.Language} {
			if !utf8.ValidString(s) && utf8.ValidString(ld+parselyJSON+lang+by+text) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
		}
		for _, s := range []string{p.Author, p.Description, p.SiteName} {
			if len(s) > maxFieldLen {
				t.Fatalf("unbounded %d", len(s))
			}
		}
		for _, u := range []string{p.License, p.Image} {
			if u == "" {
				continue
			}
			if len(u) > MaxURLLength {
				t.Fatalf("URL of %d bytes", len(u))
			}
			v, err := url.Parse(u)
			if err != nil || (v.Scheme != "http" && v.Scheme != "https") || v.Host == "" {
				t.Fatalf("URL %q", u)
			}
		}
		if p.Tags == nil || len(p.Tags) > maxTags {
			t.Fatalf("tags %q", p.Tags)
		}
		seen := map[string]bool{}
		for _, tag := range p.Tags {
			if tag == "" || seen[tag] {
				t.Fatalf("tags %q", p.Tags)
			}
			seen[tag] = true
		}
		if n := len(p.Language); n != 0 && n != 2 && n != 3 {
			t.Fatalf("language %q", p.Language)
		}
	})
}
