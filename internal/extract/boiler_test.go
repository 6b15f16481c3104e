package extract

import (
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"
)

func TestBoilerBlock(t *testing.T) {
	for b, want := range map[string]bool{
		"By Jane Doe":                                    true,
		"By TOM KRISHER, AP Auto Writer":                 true,
		"Updated Nov 19, 9:41 AM;Posted Nov 18, 8:19 PM": true,
		"PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: 11:05, Tue, Nov 19, 2019": true,
		"Published 1 day ago": true,
		"China has warned they will cease control of Hong Kong (Image: GETTY )": true,
		"© Aaron Schwartz":                                       true,
		"Alex Wong | Getty Images":                               true,
		"Officials in Mongolia Credit: The Siberian Times":       true,
		"SEE MORE: Hong Kong protests: 800 students under siege": true,
		"You may also like...":                                   true,
		"Whatsapp Facebook Pint Baixar":                          true,
		"Tags: love, self-esteem, reflection":                    true,
		"Filed under allotments, water, committee":               true,
		"Image 1 of / 9":                                         true,
		"Caption":                                                true,
		"(Reporting by Greg Roumeliotis; Editing by Ann)":        true,
		"Join our Space Forums to keep talking space!":           true,
		"Lesen Sie auch: Der Kompost dampft":                     true,
		"[Related: The trough campaign]":                         true,
		"This website uses cookies to improve your experience.":  true,
		"Associated Press writers Alan Fram and Zeke Miller contributed to this report.": true,
		"Email Tariq Malik at tmalik@space.com or follow him @tariqjmalik.":              true,
		"If you enjoyed this article, we have a proposition for you: join us. Members get all of our content, and more, for the price of a coffee a week, which is less than you would think, and they help us keep the site going.": true,
		"By HNN Staff | November 18, 2019 at 2:26 PM HST - Updated November 18 at 4:46 PM":                                                                                               true,
		"In this Sunday, Nov. 10, 2019, photograph, a long row of unsold E-Pace sports-utility vehicles sits at a Jaguar dealership in Littleton, Colo. (AP Photo/David Zalubowski)":     true,
		"05/10/2018 - Publicado por: Clarissa Borba - Categoria: Saúde - Tags: sad arrombamento veiculo":                                                                                 true,
		"Posted by Ann Gardener | 2026-03-02 | 4 comments":                                                                                                                               true,
		"[button link=\"https://blog.example/submit/\" type=\"big\"] Send us your review[/button]":                                                                                       true,
		"Start your day with the Opening Bell powered by The Water Coolest. The Water Coolest is the preferred reading of finance professionals. Sign up for the free daily newsletter.": true,
		// Text of the article.
		"The committee wrote a newsletter about the troughs. Subscribers to it were pleased.":                                                                                          false,
		"The meeting ran late - by ten minutes - and the tea ran out.":                                                                                                                 false,
		"2026-03-02 - a date to remember - the day the troughs were mended.":                                                                                                           false,
		"The committee met in the hall (photographs of the troughs were passed round) and agreed to mend them before the summer, at last, with the money from the raffle (about £40).": false,
		"Also on the agenda was the pond, which is now a good deal bigger than it was.":                                                                                                false,
		"More from the allotment next week, when the beans are up.":                                                                                                                    false,
		"Subscribers to the seed swap get first pick.":                                                                                                                                 false,
		"By 2019 the committee had 40 members | a record.":                                                                                                                             false,
		"Follow the path past the sheds to plot 14.":                                                                                                                                   false,
		"Joining the society costs ten pounds a year.":                                                                                                                                 false,
		"Reporting the leak took three phone calls.":                                                                                                                                   false,
		"Tagged birds are easier to count.":                                                                                                                                            false,
		"Image 1 of the series shows the trough.":                                                                                                                                      false,
		"By the end of the week the troughs were mended.":                                                                                                                              false,
		"Related matters were left for another meeting, as usual":                                                                                                                      false,
		"Relatedly, nobody came.":                                                                                                                                                      false,
		"Updated guidance is expected.":                                                                                                                                                false,
		"Photographs of the troughs were taken for the insurer.":                                                                                                                       false,
		"Share and share alike, the committee said.":                                                                                                                                   false,
		"": false,
	} {
		if got := boilerBlock(b, false); got != want {
			t.Errorf("boilerBlock(%q) = %v, want %v", b, got, want)
		}
	}
}

func TestBoilerHeading(t *testing.T) {
	if boilerBlock("By Train Through the Alps", true) || boilerBlock("Updated for 2026", true) {
		t.Error("a heading judged a byline or dateline")
	}
	if !boilerBlock("You may also like", true) {
		t.Error("a promo heading kept")
	}
}

func TestHeadlineLink(t *testing.T) {
	for _, c := range []struct {
		b      string
		linked int
		want   bool
	}{
		{"TAYLOR SWIFT CLEARED TO PERFORM HITS AT AMAs", 38, true},
		{"TAYLOR SWIFT CLEARED TO PERFORM HITS AT AMAs", 0, false}, // capitals, but not a link
		{"Read the committee's minutes here", 30, false},           // a link, but a sentence
		{"NASA", 4, false}, // too short to be a headline
	} {
		if got := headlineLink(c.b, c.linked); got != c.want {
			t.Errorf("headlineLink(%q, %d) = %v", c.b, c.linked, got)
		}
	}
}

func TestWithoutSelf(t *testing.T) {
	text := "First.\n\nhttps://b.example/p/1\n\nSee https://b.example/p/1 for more."
	want := "First.\n\nSee https://b.example/p/1 for more."
	if got := withoutSelf(text, "https://b.example/p/1", ""); got != want {
		t.Errorf("got %q", got)
	}
}

func TestRenderBreaks(t *testing.T) {
	doc, err := html.Parse(strings.NewReader("<div>One.<br><br><br><br>\n   Two.<br>\n   Three <b>bold</b><i>glued</i>.</div><ul><li>a</li><li> b </li></ul><pre>  x\n    y\n</pre>"))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := renderText(doc, pruned)
	text := r.text
	want := "One.\n\nTwo.\nThree boldglued.\n\na\n\nb\n\n  x\n    y"
	if text != want {
		t.Errorf("got %q\nwant %q", text, want)
	}
}

// TestTeasers: lists of teasers of other stories and later entries of a
// listing are recognised by their shape, and an article's own sections,
// lists and link-led paragraphs are not.
func TestTeasers(t *testing.T) {
	card := func(h, blurb string) string {
		return `<div class="card"><h3><a href="/` + h + `/">` + h + `</a></h3><p>` + blurb + `</p></div>`
	}
	blurb := "A short blurb of the other story, a sentence or two long."
	long := strings.Repeat("A paragraph of the post itself, long enough to be one. ", 14)
	cases := []struct {
		name, list string
		teasers    bool
	}{
		{"cards", card("Hedges", blurb) + card("Ponds", blurb) + card("Wool", blurb), true},
		{"cards and an ad", card("Hedges", blurb) + card("Ponds", blurb) + card("Wool", blurb) + `<div class="ad">Ad</div>`, true},
		{"list items led by a long link", `<li><a href="/a">The first other story of the week</a> ` + blurb + `</li><li><a href="/b">The second other story of the week</a> ` + blurb + `</li><li><a href="/c">The third other story of the week</a> ` + blurb + `</li>`, true},
		{"two cards", card("Hedges", blurb) + card("Ponds", blurb), false},
		{"long entries", card("Hedges", long) + card("Ponds", long) + card("Wool", long), false},
		{"sections of one post", `<div class="s"><h2>Soil</h2><p>` + blurb + `</p></div><div class="s"><h2>Water</h2><p>` + blurb + `</p></div><div class="s"><h2>Light</h2><p>` + blurb + `</p></div>`, false},
		{"anchored headings", `<div class="s"><h2><a href="#soil">Soil</a></h2><p>` + blurb + `</p></div><div class="s"><h2><a href="#water">Water</a></h2><p>` + blurb + `</p></div><div class="s"><h2><a href="#light">Light</a></h2><p>` + blurb + `</p></div>`, false},
		{"paragraphs", `<p><a href="/a">A link that opens the paragraph</a> and text.</p><p><a href="/b">A link that opens the paragraph</a> and text.</p><p><a href="/c">A link that opens the paragraph</a> and text.</p>`, false},
		{"thumbnail cards of the site", `<div class="t"><a href="/a"><img src="a.jpg"></a><p>` + blurb + `</p></div><div class="t"><a href="/b"><img src="b.jpg"></a><p>` + blurb + `</p></div><div class="t"><a href="https://blog.example/c"><img src="c.jpg"></a><p>` + blurb + `</p></div>`, true},
		{"thumbnails of another site", `<div class="t"><a href="https://shop.example/a"><img src="a.jpg"></a><p>` + blurb + `</p></div><div class="t"><a href="https://shop.example/b"><img src="b.jpg"></a><p>` + blurb + `</p></div><div class="t"><a href="https://shop.example/c"><img src="c.jpg"></a><p>` + blurb + `</p></div>`, false},
		{"a list the author wrote", `<li>Soil: ` + blurb + `</li><li>Water: ` + blurb + `</li><li>Light: ` + blurb + `</li>`, false},
	}
	for _, c := range cases {
		doc, err := html.Parse(strings.NewReader(`<div id="x">` + c.list + `</div>`))
		if err != nil {
			t.Fatal(err)
		}
		var n *html.Node
		elements(doc, func(e *html.Node) bool {
			if attr(e, "id") == "x" {
				n = e
			}
			return n == nil
		})
		if got := teaserList(n, "blog.example"); got != c.teasers {
			t.Errorf("%s: teaser list %v, want %v", c.name, got, c.teasers)
		}
	}
}

// TestHoverCard: a hover card glued to a name keeps the name only; a
// sentence with several links keeps them all.
func TestHoverCard(t *testing.T) {
	cases := []struct{ in, want string }{
		{`<p>Rep. <span class="rp"><a href="/people/ann-gardener">Ann Gardener</a><span class="card"><span><img src="/a.jpg" alt=""><a class="name" href="/people/ann-gardener">Ann Gardener</a><a href="/x">Allotment committee votes to mend the troughs before the summer heat</a> <a href="/y">Overnight Gardening: seed swap record | Beans first again | Parsnips last</a> <a href="/people/ann-gardener">MORE</a></span></span></span> (Plot 14) said so.</p>`,
			"Rep. Ann Gardener (Plot 14) said so."},
		{`<p><span><a href="/a">One source with a long name of its own</a>, <a href="/b">a second source with a long name of its own</a> and <a href="/c">a third source with a long name of its own</a> all agree.</span></p>`,
			"One source with a long name of its own, a second source with a long name of its own and a third source with a long name of its own all agree."},
	}
	for _, c := range cases {
		doc, err := html.Parse(strings.NewReader(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := renderText(doc, pruned); got.text != c.want {
			t.Errorf("got\n%q\nwant\n%q", got.text, c.want)
		}
	}
}

func TestIsSpace(t *testing.T) {
	for r := rune(0); r < 0x11000; r++ {
		if isSpace(r) != unicode.IsSpace(r) {
			t.Errorf("isSpace(%U) = %v", r, isSpace(r))
		}
	}
}

// TestLaterListEntry: a listing of the site's own posts is cut to its
// first entry; a round-up of other sites' pages, of the same shape, is the
// post and is kept whole.
func TestLaterListEntry(t *testing.T) {
	entry := func(href string) string {
		return `<div class="entry"><h2><a href="` + href + `">A title</a></h2><p>Some text of the entry, a sentence or two.</p></div>`
	}
	for _, c := range []struct {
		name, a, b string
		later      bool
	}{
		{"the site's posts", "/2026/05/one/", "https://blog.example/2026/04/two/", true},
		{"products elsewhere", "https://shop.example/boots", "https://other.example/boots", false},
		{"anchors", "#one", "#two", false},
	} {
		doc, err := html.Parse(strings.NewReader(entry(c.a) + entry(c.b)))
		if err != nil {
			t.Fatal(err)
		}
		var entries []*html.Node
		elements(doc, func(e *html.Node) bool {
			if hasClass(e, "entry") {
				entries = append(entries, e)
			}
			return true
		})
		if laterListEntry(entries[0], "blog.example") || laterListEntry(entries[1], "blog.example") != c.later {
			t.Errorf("%s: later entry not %v", c.name, c.later)
		}
	}
}

func TestLinkCluster(t *testing.T) {
	for _, c := range []struct {
		html string
		want bool
	}{
		{`<p>DON'T MISS <a href="/a">Plague warning: CDC names eight deadly diseases</a> [WARNING] <a href="/b">Holidaymakers die after eating marmot in Mongolia</a> [INSIGHT] <a href="/c">Plane passengers quarantined after a scare</a> [PICS]</p>`, true},
		{`<p>Sources: <a href="/a">RHS</a>, <a href="/b">Garden Organic</a> and <a href="/c">the council</a>.</p>`, false},
		{`<p>As <a href="/a">the first study of troughs in the county</a> showed, and <a href="/b">a second study a year later</a> confirmed, the leaks start in June; <a href="/c">the committee's own notes</a> say the same, and nobody has yet agreed what to do about them.</p>`, false},
	} {
		doc, err := html.Parse(strings.NewReader(c.html))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := renderText(doc, pruned)
		text := r.text
		if (text == "") != c.want {
			t.Errorf("%q: kept %q", c.html, text)
		}
	}
}
