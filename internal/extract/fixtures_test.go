package extract_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/extract"
)

// TestFixtures states, fixture by fixture, what the golden files must show,
// so that -update cannot quietly bless a regression.
func TestFixtures(t *testing.T) {
	type want struct {
		noindex, nofollow, shell bool
		published                string   // RFC 3339, "" for none
		links                    []string // exactly these, in this order; nil means none
		text                     string   // a phrase the text must hold ("" when the text must be empty)
		notText                  string   // a phrase it must not hold
	}
	slow := []string{"https://www.rfc-editor.org/rfc/rfc9309", "https://example.org/papers/polite-crawling.pdf"}
	cases := map[string]want{
		"wordpress_post": {published: "2025-04-12T07:30:00Z", text: "For eleven years we double-dug", notText: "Recent Posts",
			links: []string{
				"https://www.rhs.org.uk/advice/profile?pid=273",
				"https://charlesdowding.co.uk/no-dig/",
				"https://gardennotes.example/2024/11/compost-delivery/",
				"https://www.gardenorganic.org.uk/expert-advice/garden-management/pests-and-diseases/slugs",
				"https://gardennotes.example/2024/09/soil-test/",
			}},
		"plain_post":        {links: slow, text: "Read page four again"},
		"noindex_robots":    {noindex: true, links: slow},
		"noindex_corpusbot": {noindex: true, links: slow},
		"nofollow_robots":   {nofollow: true, text: "Most crawlers are written to be fast"},
		"none_corpusbot":    {noindex: true, nofollow: true},
		"odd_spacing":       {noindex: true, nofollow: true},
		"space_separated":   {noindex: true, nofollow: true},
		"meta_robots_both":  {noindex: true, nofollow: true, published: "2026-03-01T00:00:00Z"},
		"meta_in_body":      {nofollow: true, text: "Most crawlers"},
		"googlebot_only":    {links: slow, text: "Most crawlers"},
		"other_bot":         {links: slow, text: "Most crawlers"},
		"shell_react":       {shell: true},
		"shell_next":        {shell: true},
		"shell_vue":         {shell: true},
		"shell_angular":     {shell: true},
		"shell_angularjs":   {shell: true},
		"shell_loading":     {shell: true},
		"shell_bare":        {shell: true},
		// Shells with the article in their own data are pages.
		"shell_next_data":  {text: "The pump\n\nIn the end the café"},
		"shell_nuxt_data":  {text: "grows again from the base.\n\nStakes and binders\n\nHazel stakes"},
		"shell_nuxt2_json": {text: "village hall.\n\nThe juice went into six demijohns"},
		// Nuxt 2's state written as a function call is a script: not run, not read.
		"shell_nuxt2_script": {shell: true},
		"shell_jsonld_body":  {published: "2026-03-02T00:00:00Z", text: "mend.\n\nIn the end the café"},
		"empty":              {},
		"short_post":         {links: []string{"https://lighthouse.example/part-two"}, text: "The blog is on holiday"},
		"next_ssr_short":     {text: "Version 2.1 is out."},
		"windows1252":        {links: []string{"http://cafesociety.example/2024/05/dead.html"}, text: "“the café is dead”"},
		"latin1_label":       {links: []string{"http://cafesociety.example/2024/05/dead.html"}, text: "costs £0"},
		"base_href": {links: []string{
			"https://docs.example/guide/v2/settings.html",
			"https://docs.example/guide/v1/settings.html",
			"https://docs.example/faq",
			"https://docs.example/guide/v2/redirects.html?lang=en",
		}, text: "The fetcher reads"},
		"relative_links": {links: []string{
			"https://blog.example/2025/12/winter-list/",
			"https://blog.example/about/",
			"https://books.example/no-dig-handbook",
			"https://walks.example/pennine-way?ref=blog&utm=1",
			"https://cooking.example/Bread",
		}, text: "reading this spring"},
		"jsonld_published": {published: "2026-02-03T19:05:00Z", text: "coverage gap"},
		"time_datetime":    {published: "2026-01-27T18:00:00Z", text: "sitemap reader"},
		// An embedded tweet kept, boilerplate pruned, blocks kept apart
		// (TestStructure checks the text exactly).
		"embedded_tweet": {text: "Troughs. We're on it.", notText: "Hidden from readers", links: []string{"https://t.co/abc123", "https://twitter.com/bobdigs/status/1"}},
		// A post followed by teasers of others: the first entry only, its tags left out.
		"listing_first_post": {text: "leave ourselves behind.", notText: "Optimism"},
		// The same, with entries that are not <article>s: the first kept.
		"listing_divs": {text: "earthed them up twice in one week.", notText: "The seed swap", links: []string{"https://blog.example/2026/05/first-earlies/"}},
		// A grid of teasers of other stories inside the chosen block: left out.
		"teaser_grid": {text: "every July for nineteen years.", notText: "Wool prices"},
		// A page builder's rows of boxes, and a recipe card after the story: all of it.
		"builder_rows": {text: "The studio moved in March", notText: "Sign up for our newsletter"},
		"recipe_card":  {text: "strain the gin through muslin", notText: "We used vodka"},
		// A live blog's entries are all the article.
		"live_blog": {text: "three cold frames broken"},
		// Metadata (TestMetadata checks the fields).
		"meta_jsonld_graph": {published: "2026-03-02T08:00:00Z", text: "the matter was closed with tea"},
		"meta_opengraph":    {published: "2026-02-10T08:15:00Z", text: "bei einer Tasse Tee", links: []string{"https://creativecommons.org/licenses/by-sa/4.0/deed.de"}},
		"meta_parsely":      {published: "2026-04-05T07:00:00Z", text: "autour d’un thé"},
		"meta_byline":       {published: "2026-05-06T12:00:00Z", text: "the matter was closed with tea"}, // the byline's link is no citation
		// Decoding: each page holds a word only the right encoding gives.
		"late_utf8":         {text: "the secretary’s notes"},
		"late_meta":         {text: "the secretary’s notes"},
		"meta_straddle":     {text: "“a decision was deferred”"},
		"header_charset":    {text: "Комитет садоводов"},
		"header_beats_meta": {text: "своё мнение"},
		"bom_utf16":         {text: "the café on the corner"},
		"mislabelled_utf8":  {text: "the café on the corner"},
		"undeclared_legacy": {text: "s’est réuni"},
		// Every kind of block (TestMarkdown checks the Markdown).
		"markdown_blocks": {text: "The shed roof waits until autumn.\n\nNobody was happy"},
		"invisible_nfd":   {text: "The café on the corner offered to lend a pump to the committee, and everyone agreed that the matter was closed."},
	}
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	if len(names) != len(cases) {
		t.Errorf("%d fixtures, %d cases", len(names), len(cases))
	}
	for _, path := range names {
		stem := strings.TrimSuffix(path, ".html")
		name := filepath.Base(stem)
		w, ok := cases[name]
		if !ok {
			t.Errorf("no case for %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := extract.ParseResponse(body, fixtureURL(t, stem), fixtureContentType(t, stem), agent)
			if err != nil {
				t.Fatal(err)
			}
			if p.Noindex != w.noindex || p.Nofollow != w.nofollow || p.Shell != w.shell {
				t.Errorf("noindex %v nofollow %v shell %v, want %v %v %v", p.Noindex, p.Nofollow, p.Shell, w.noindex, w.nofollow, w.shell)
			}
			var got string
			if !p.Published.IsZero() {
				got = p.Published.Format(time.RFC3339)
			}
			if got != w.published {
				t.Errorf("published %q, want %q", got, w.published)
			}
			if !slices.Equal(p.Links, w.links) {
				t.Errorf("links\n%q\nwant\n%q", p.Links, w.links)
			}
			if p.Nofollow && p.Links != nil {
				t.Errorf("nofollow page with links %q", p.Links)
			}
			if (p.Noindex || p.Shell) && p.Text != "" {
				t.Errorf("text kept for a noindex or shell page")
			}
			if w.text == "" && p.Text != "" && (p.Noindex || p.Shell) {
				t.Errorf("unexpected text %q", p.Text)
			}
			if w.text != "" && !strings.Contains(p.Text, w.text) {
				t.Errorf("text lacks %q:\n%s", w.text, p.Text)
			}
			if w.notText != "" && strings.Contains(p.Text, w.notText) {
				t.Errorf("text holds %q", w.notText)
			}
			if p.Title == "" && name != "empty" {
				t.Errorf("no title")
			}
		})
	}
}
