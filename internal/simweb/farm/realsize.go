package farm

import (
	"html"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sizes is how large a farm's documents are.
type Sizes int

const (
	// SizesSmall: a post is Words long, a page is the post and a few lines
	// of markup (a few KB), a full-content feed page ten such posts. The
	// default, which the published figures were measured with.
	SizesSmall Sizes = iota
	// SizesReal: what a crawler meets on real blogs. An article page is
	// 50–500 KB of HTML (a lognormal around 120 KB, clamped), most of it not
	// the article: inline CSS and script state, a navigation menu, related
	// posts, comments and a sidebar of widgets, around an article body with
	// headings, figures, lists, quotes, code and links. A full-content feed
	// page of PageSize entries is 100 KB–1 MB (log-uniform per site), each
	// entry the post's whole body. Homepages take a page's size too; summary
	// feeds, sitemaps and robots.txt keep theirs. Every size is drawn from a
	// hash of the site and the document's path, so a document is the same
	// on every request.
	SizesReal
)

// The bounds of SizesReal.
const (
	realPageMin, realPageMedian, realPageMax = 50 << 10, 120 << 10, 500 << 10
	realFeedMin, realFeedMax                 = 100 << 10, 1 << 20
	realPageSigma                            = 0.6 // of the page size's logarithm
)

// pageFrame is about what a real page's markup around its content and
// furniture takes (its head, the article's header, the footer).
const pageFrame = 2 << 10

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// realPageBytes is the size the page at path is drawn to (before its
// article body is counted: a body larger than the page's share grows it).
func (s Site) realPageBytes(path string) int {
	r := rand.New(rand.NewPCG(hashOf(s.seed, "page-size", path), 0x5123))
	v := realPageMedian * math.Exp(realPageSigma*r.NormFloat64())
	return int(min(max(v, realPageMin), realPageMax))
}

// realBodyBytes is how long post p's article body is, in bytes of HTML:
// the site's full-content feed page size over PageSize entries, the post's
// own length within ±25% of that.
func (s Site) realBodyBytes(p Post) int {
	lo, hi := math.Log(realFeedMin), math.Log(realFeedMax)
	feed := math.Exp(lo + unit(hashOf(s.seed, "feed-size"))*(hi-lo))
	per := feed / float64(s.farm.cfg.PageSize)
	return int(per * (0.75 + 0.5*unit(hashOf(p.seed, "body-size"))))
}

// realText is post p's article body at SizesReal: paragraphs with inline
// links, and between them the headings, figures, lists, quotes and code a
// long post has, up to realBodyBytes.
func (s Site) realText(p Post) string {
	b := getWriter()
	defer putWriter(b)
	s.writeRealText(b, p)
	return b.String()
}

// writeRealText writes realText(p) to b.
func (s Site) writeRealText(b *docWriter, p Post) {
	want := s.realBodyBytes(p)
	b.Grow(want + 4096)
	start := b.Len()
	r := newRNG(p.seed, 0xb0d1)
	for i := 0; b.Len()-start < want; i++ {
		seed := p.seed*31 + uint64(i)
		switch {
		case i > 0 && i%4 == 0:
			b.str("<h2 id=\"section-")
			b.int(i)
			b.str("\">")
			b.prose(seed^0x4242, 4+r.IntN(5), false)
			b.str("</h2>\n")
		case i%7 == 3:
			var ibuf [64]byte // the image's path fits: built on the stack
			ib := docWriter{buf: ibuf[:0]}
			ib.str("/wp-content/uploads/")
			ib.int(p.Published.Year())
			ib.WriteByte('/')
			ib.zeroPad(int(p.Published.Month()), 2)
			ib.WriteByte('/')
			ib.hex(seed&0xffffff, 0)
			img := ib.String()
			b.str("<figure class=\"wp-block-image size-large\"><img loading=\"lazy\" decoding=\"async\" width=\"1024\" height=\"683\" src=\"", img, "-1024x683.jpg\" ",
				"srcset=\"", img, "-1024x683.jpg 1024w, ", img, "-300x200.jpg 300w, ", img, "-768x512.jpg 768w, ", img, "-1536x1024.jpg 1536w, ", img, ".jpg 1920w\" ",
				"sizes=\"(max-width: 1024px) 100vw, 1024px\" alt=\"")
			b.prose(seed^0x1a1a, 5, false)
			b.str("\"><figcaption class=\"wp-element-caption\">")
			b.prose(seed^0xca9, 8+r.IntN(10), true)
			b.str("</figcaption></figure>\n")
		case i%9 == 5:
			b.WriteString("<ul class=\"wp-block-list\">\n")
			for j := range 3 + r.IntN(4) {
				b.str("<li>")
				b.prose(seed*7+uint64(j), 8+r.IntN(16), true)
				b.str("</li>\n")
			}
			b.WriteString("</ul>\n")
		case i%11 == 6:
			b.str("<blockquote class=\"wp-block-quote\"><p>")
			b.prose(seed^0xb10c, 20+r.IntN(30), true)
			b.str("</p><cite>")
			b.prose(seed^0xc17e, 2, false)
			b.str("</cite></blockquote>\n")
		case i%13 == 8:
			b.WriteString("<pre class=\"wp-block-code\"><code>")
			for j := range 4 + r.IntN(12) {
				b.str(Words[r.IntN(len(Words))], "(")
				b.quote(Words[r.IntN(len(Words))])
				b.str(", ")
				b.int(j)
				b.str(") // ")
				b.prose(seed+uint64(j), 4, false)
				b.WriteByte('\n')
			}
			b.WriteString("</code></pre>\n")
		default:
			b.WriteString("<p>")
			b.prose(seed, 40+r.IntN(90), true)
			if i%3 == 1 {
				b.str(" As <a href=\"https://ref-")
				b.int(r.IntN(50))
				b.str(".example/")
				b.int(r.IntN(1000))
				b.WriteByte('/')
				b.str(Words[r.IntN(len(Words))], "\">")
				b.prose(seed^0x11, 3, false)
				b.str("</a> put it.")
			}
			b.WriteString("</p>\n")
		}
	}
}

// furniture is what a real blog page carries besides its content, sized
// to fill the page to want bytes: the parts before the content (inline CSS
// and JSON-LD in the head, the navigation menu) and after it (related
// posts, comments, a sidebar of widgets, the footer, inline script state).
// Its parts are slices of the buffer they were written in.
type furniture struct{ head, nav, after, tail []byte }

// realFurniture writes the furniture of the page at path to b, about
// budget bytes in all, and returns its parts; title and published
// describe the page's own post (zero for a homepage).
func (s Site) realFurniture(b *docWriter, path, title string, published time.Time, budget int) furniture {
	r := newRNG(hashOf(s.seed, "furniture", path), 0xf0f0)
	budget = max(budget, 8<<10)
	b.Grow(budget + 16<<10)
	// The parts go one after another into b: h, n, a and t are b, under
	// the names the parts had when each was a builder of its own.
	h, n, a, t := b, b, b, b

	// The head: social metadata, preloads, a theme's inline CSS (a fifth of
	// the budget) and the article's JSON-LD.
	h0 := b.Len()
	h.str("<meta name=\"description\" content=\"", html.EscapeString(prose(hashOf(s.seed, path, "desc"), 25, true)), "\">\n")
	h.str("<meta property=\"og:type\" content=\"article\"><meta property=\"og:title\" content=\"", html.EscapeString(title), "\"><meta property=\"og:url\" content=\"", s.URL(path), "\">",
		"<meta property=\"og:image\" content=\"", s.URL("/wp-content/uploads/cover.jpg"), "\"><meta name=\"twitter:card\" content=\"summary_large_image\">\n")
	for i := range 6 {
		h.str("<link rel=\"preload\" as=\"font\" type=\"font/woff2\" crossorigin href=\"/wp-content/themes/t/fonts/f")
		h.int(i)
		h.str(".woff2\">\n")
	}
	h.WriteString("<style id=\"global-styles-inline-css\">\n")
	for i := 0; h.Len()-h0 < budget/5; i++ {
		h.str(".wp-block-", Words[r.IntN(len(Words))], "-")
		h.int(i)
		h.str("{margin:0 0 ")
		h.float(r.Float64()*3, 2)
		h.str("rem;padding:")
		h.int(r.IntN(40))
		h.str("px ")
		h.int(r.IntN(40))
		h.str("px;color:#")
		h.hex(uint64(r.IntN(1<<24)), 6)
		h.str(";font-size:clamp(1rem,")
		h.float(1+r.Float64()*2, 2)
		h.str("vw,")
		h.float(1+r.Float64()*2, 1)
		h.str("rem)}\n")
	}
	h.WriteString("</style>\n")
	h.str("<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"BlogPosting\",\"headline\":")
	h.quote(title)
	h.str(",\"url\":")
	h.quote(s.URL(path))
	h.str(",\"publisher\":{\"@type\":\"Organization\",\"name\":")
	h.quote(s.Host)
	h.WriteByte('}')
	if !published.IsZero() {
		h.str(",\"datePublished\":")
		h.quote(published.Format(time.RFC3339))
	}
	h.WriteString("}</script>\n")

	// The menu: a few dozen categories.
	n0 := b.Len()
	n.WriteString("<nav class=\"main-navigation\" aria-label=\"Primary\"><ul class=\"menu\">\n")
	for i := range 20 + r.IntN(40) {
		w := Words[r.IntN(len(Words))]
		n.str("<li class=\"menu-item menu-item-")
		n.int(100 + i)
		n.str("\"><a href=\"/category/", w, "/\">", w, "</a></li>\n")
	}
	n.WriteString("</ul></nav>\n")

	a0 := b.Len()
	// Related posts and an author box.
	a.WriteString("<section class=\"related-posts\"><h2>Related</h2><ul>\n")
	for i := 1; i <= min(6, s.Posts); i++ {
		p := s.Post(1 + (int(hashOf(s.seed, path, strconv.Itoa(i)))%s.Posts+s.Posts)%s.Posts)
		a.str("<li><a href=\"", p.Path, "\">", html.EscapeString(p.Title), "</a></li>\n")
	}
	a.WriteString("</ul></section>\n")
	a.str("<div class=\"author-bio\"><img src=\"/avatar.png\" alt=\"\" width=\"64\" height=\"64\"><p>")
	a.prose(hashOf(s.seed, "bio"), 30, true)
	a.str("</p></div>\n")
	// Comments: three tenths of the budget.
	stop := a.Len() + budget*3/10
	a.WriteString("<section id=\"comments\" class=\"comments-area\"><h2 class=\"comments-title\">Comments</h2><ol class=\"comment-list\">\n")
	for i := 0; a.Len() < stop; i++ {
		id := 1000 + i
		a.str("<li id=\"comment-")
		a.int(id)
		a.str("\" class=\"comment depth-1\"><div class=\"comment-body\"><footer class=\"comment-meta\"><b class=\"fn\">")
		// What the farm has always served, as its first rendering through
		// fmt (whose %[1]d sent the arguments after it one place back)
		// wrote it: the author's name again as the time's datetime, the
		// time as its text, and "a while ago" as the comment. The
		// comment's length is still drawn, so that the rest of the page
		// stays as it was; the words it would have had are not written.
		name := commentNames()[r.IntN(len(commentNames()))]
		a.str(name, "</b> <a href=\"#comment-")
		a.int(id)
		a.str("\"><time datetime=\"", name, "\">", s.farm.commentTimes()[r.IntN(commentHours)], "</time></a></footer><div class=\"comment-content\"><p>a while ago")
		_ = r.IntN(80)
		a.str("</p></div><div class=\"reply\"><a rel=\"nofollow\" class=\"comment-reply-link\" href=\"#comment-")
		a.int(id)
		a.str("\">Reply</a></div></div></li>\n")
	}
	a.WriteString("</ol></section>\n")
	// The sidebar: a sixth of the budget in widgets.
	stop = a.Len() + budget/6
	a.WriteString("<aside id=\"secondary\" class=\"sidebar widget-area\">\n<section class=\"widget widget_search\"><form role=\"search\" action=\"/\"><input type=\"search\" name=\"s\"><button>Search</button></form></section>\n")
	a.WriteString("<section class=\"widget widget_recent_entries\"><h2>Recent posts</h2><ul>\n")
	for n := s.Posts; n > max(0, s.Posts-10); n-- {
		p := s.Post(n)
		a.str("<li><a href=\"", p.Path, "\">", html.EscapeString(p.Title), "</a></li>\n")
	}
	a.WriteString("</ul></section>\n<section class=\"widget widget_archive\"><h2>Archives</h2><ul>\n")
	for m := 0; m < 36 && a.Len() < stop; m++ {
		t := s.farm.cfg.Start.AddDate(0, -m, 0)
		a.str("<li><a href=\"/")
		a.time(t, "2006/01")
		a.str("/\">")
		a.time(t, "January 2006")
		a.str("</a></li>\n")
	}
	a.WriteString("</ul></section>\n<section class=\"widget widget_tag_cloud\"><h2>Tags</h2><div class=\"tagcloud\">\n")
	for a.Len() < stop {
		w := Words[r.IntN(len(Words))]
		a.str("<a href=\"/tag/", w, "/\" class=\"tag-cloud-link\" style=\"font-size: ")
		a.float(8+r.Float64()*14, 1)
		a.str("pt;\" aria-label=\"", w, " (")
		a.int(1 + r.IntN(40))
		a.str(" items)\">", w, "</a>\n")
	}
	a.WriteString("</div></section>\n</aside>\n")

	// After the footer: a theme's script state, the rest of the budget.
	t0 := b.Len()
	stop = budget - (t0 - h0)
	t.Grow(max(stop, 0) + 1024)
	t.WriteString("<script id=\"theme-state\">window.__THEME_STATE__={\"posts\":[")
	for i := 0; t.Len()-t0 < stop; i++ {
		if i > 0 {
			t.WriteByte(',')
		}
		t.str("{\"id\":")
		t.int(4000 + i)
		t.str(",\"slug\":")
		t.quote(Words[r.IntN(len(Words))])
		t.str(",\"excerpt\":")
		// Prose quotes as itself (see wordTables): the quotes around it
		// are all %q would add.
		seed := uint64(r.IntN(1 << 20))
		t.WriteByte('"')
		t.prose(seed, 12+r.IntN(20), true)
		t.WriteByte('"')
		t.str(",\"views\":")
		t.int(r.IntN(100000))
		t.WriteByte('}')
	}
	t.WriteString("]};</script>\n")
	return furniture{head: b.buf[h0:n0], nav: b.buf[n0:a0], after: b.buf[a0:t0], tail: b.buf[t0:]}
}

// commentNames are the names comments are signed with: prose(i, 2,
// false) for each i < 500, the seeds a page draws them from, worked out
// once rather than for each of a page's hundred comments.
var commentNames = sync.OnceValue(func() []string {
	names := make([]string, 500)
	for i := range names {
		names[i] = prose(uint64(i), 2, false)
	}
	return names
})

// commentHours is how many hours before the farm's start a comment's
// time is drawn from.
const commentHours = 5000

// commentTimes are the times comments are dated with, in RFC 3339: for
// each i < commentHours, Start less i hours, formatted once per farm.
func (f *Farm) commentTimes() []string {
	f.commentTimesOnce.Do(func() {
		f.commentTimesText = make([]string, commentHours)
		for i := range f.commentTimesText {
			f.commentTimesText[i] = f.cfg.Start.Add(-time.Duration(i) * time.Hour).Format(time.RFC3339)
		}
	})
	return f.commentTimesText
}

// realPage is post p's page at SizesReal.
func (s Site) realPage(p Post) string {
	b := getWriter()
	defer putWriter(b)
	s.writeRealPage(b, p)
	return b.String()
}

// writeRealPage writes realPage(p) to b.
func (s Site) writeRealPage(b *docWriter, p Post) {
	body := getWriter()
	defer putWriter(body)
	s.writeRealText(body, p)
	budget := s.realPageBytes(p.Path) - body.Len() - pageFrame
	fb := getWriter()
	defer putWriter(fb)
	f := s.realFurniture(fb, p.Path, p.Title, p.Published, budget)
	b.Grow(body.Len() + budget + 4096)
	s.writeHeadOpen(b, p.Title)
	b.str("<meta property=\"article:published_time\" content=\"")
	b.time(p.Published, time.RFC3339)
	b.str("\">\n")
	if p.Noindex {
		b.WriteString("<meta name=\"robots\" content=\"noindex\">\n")
	}
	b.Write(f.head)
	s.writeHeadClose(b)
	b.Write(f.nav)
	b.str("<div id=\"page\" class=\"site\"><main id=\"main\" class=\"site-main\"><article class=\"post type-post\">\n<header class=\"entry-header\"><h1 class=\"entry-title\">",
		html.EscapeString(p.Title), "</h1>\n<p class=\"meta\"><time datetime=\"")
	b.time(p.Published, time.RFC3339)
	b.str("\">")
	b.time(p.Published, "2 January 2006")
	b.str("</time></p></header>\n<div class=\"entry-content\">\n")
	b.Write(body.buf)
	b.str("<p>See <a href=\"https://cited-")
	b.uint(p.seed % 7)
	b.str(".example/notes/")
	b.uint(p.seed % 97)
	b.str("\">as argued elsewhere</a>.</p>\n")
	b.WriteString("</div></article>\n")
	b.Write(f.after)
	b.WriteString("</main></div>\n")
	b.WriteString(strings.TrimSuffix(foot, "</body></html>\n"))
	b.Write(f.tail)
	b.WriteString("</body></html>\n")
}

// realHome is the homepage at SizesReal: the list of newest posts, with
// their excerpts, in a page's furniture.
func (s Site) realHome() string {
	b := getWriter()
	defer putWriter(b)
	s.writeRealHome(b)
	return b.String()
}

// writeRealHome writes realHome() to b.
func (s Site) writeRealHome(b *docWriter) {
	list := getWriter()
	defer putWriter(list)
	s.writeHomeList(list, true)
	fb := getWriter()
	defer putWriter(fb)
	f := s.realFurniture(fb, "/", "Home", time.Time{}, s.realPageBytes("/")-list.Len()-pageFrame)
	s.writeHeadOpen(b, "Home")
	b.Write(f.head)
	s.writeHeadClose(b)
	b.Write(f.nav)
	b.WriteString("<main id=\"main\">")
	b.Write(list.buf)
	b.Write(f.after)
	b.WriteString("</main>\n")
	b.WriteString(strings.TrimSuffix(foot, "</body></html>\n"))
	b.Write(f.tail)
	b.WriteString("</body></html>\n")
}
