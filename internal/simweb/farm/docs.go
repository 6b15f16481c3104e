package farm

import (
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"
)

// Post is one article of a site.
type Post struct {
	N         int // the n-th published, from 1
	Path      string
	Title     string
	Published time.Time
	Noindex   bool
	seed      uint64
}

// Post is post n (from 1) of the site.
func (s Site) Post(n int) Post {
	seed := s.seed ^ uint64(n)*0x9e3779b97f4a7c15
	p := Post{N: n, Title: prose(seed^0x7177, 5, false), Published: s.published(n), seed: seed}
	// The path, built without fmt: a page's furniture lists sixteen posts.
	var buf [128]byte
	path := buf[:0]
	if s.Shape.Private > 0 && n%s.Shape.Private == 0 {
		path = append(path, "/private/"...)
	} else {
		path = append(path, '/')
		path = p.Published.AppendFormat(path, "2006/01/02")
		path = append(path, '/')
	}
	// The slug: the title's first three words, lowercased, joined by
	// hyphens. A title is five words of lowercase ASCII, the first
	// capitalised, one space apart.
	for i, words := 0, 0; ; i++ {
		c := p.Title[i]
		if c == ' ' {
			if words++; words == 3 {
				break
			}
			c = '-'
		} else if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		path = append(path, c)
	}
	path = append(path, '-')
	path = strconv.AppendInt(path, int64(n), 10)
	path = append(path, '/')
	p.Path = string(path)
	p.Noindex = s.Shape.Noindex > 0 && n%s.Shape.Noindex == 0
	return p
}

// URL is the absolute URL of path on the site.
func (s Site) URL(path string) string {
	if s.farm.cfg.HTTPS {
		return "https://" + s.Host + path
	}
	return "http://" + s.Host + path
}

// FeedURL is the URL of the site's feed ("" without one).
func (s Site) FeedURL() string {
	if s.Shape.Feed == FeedNone {
		return ""
	}
	return s.URL(FeedPath(s.Shape.Feed))
}

// FeedPages is how many pages the feed has: one unless it is paged.
func (s Site) FeedPages() int {
	if s.Shape.Catalogue == CatalogueNone {
		return 1
	}
	size := s.farm.cfg.PageSize
	return max(1, (s.Posts+size-1)/size)
}

// feedPageURL is the absolute URL of page n of the feed.
func (s Site) feedPageURL(n int) string {
	if n <= 1 {
		return s.FeedURL()
	}
	return fmt.Sprintf("%s?%s=%d", s.FeedURL(), pageParam(s.Shape.Catalogue), n)
}

// onPage lists the posts of feed page n (from 1), newest first.
func (s Site) onPage(n int) []Post {
	size := s.farm.cfg.PageSize
	hi := s.Posts - (n-1)*size
	lo := max(1, hi-size+1)
	var out []Post
	for i := hi; i >= lo; i-- {
		out = append(out, s.Post(i))
	}
	return out
}

// robotsBody is the /robots.txt text, "" for the variants that serve none.
func (s Site) robotsBody() string {
	var b strings.Builder
	switch s.Shape.Robots {
	case Robots404, Robots503:
		return ""
	case RobotsSection:
		b.WriteString("User-agent: *\nDisallow: /private/\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n")
	case RobotsDisallowUs:
		b.WriteString("User-agent: CorpusBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
	case RobotsCrawlDelay:
		fmt.Fprintf(&b, "User-agent: *\nCrawl-delay: %d\nDisallow: /search\n", int(CrawlDelay/time.Second))
	case RobotsNoFeed:
		fmt.Fprintf(&b, "User-agent: *\nDisallow: %s\n", FeedPath(s.Shape.Feed))
	default:
		b.WriteString("User-agent: *\nAllow: /\n")
	}
	switch s.Shape.Sitemap {
	case SitemapRobots:
		fmt.Fprintf(&b, "\nSitemap: %s\n", s.URL("/sitemap.xml"))
	case SitemapIndex:
		fmt.Fprintf(&b, "\nSitemap: %s\n", s.URL("/sitemap_index.xml"))
	}
	return b.String()
}

func (s Site) head(b *strings.Builder, title, extra string) {
	var d docWriter
	s.writeHeadOpen(&d, title)
	d.WriteString(extra)
	s.writeHeadClose(&d)
	b.Write(d.buf)
}

// writeHeadOpen writes a page's head up to the extra markup a page puts
// in it; writeHeadClose writes the rest, up to the body's content.
func (s Site) writeHeadOpen(b *docWriter, title string) {
	b.str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", html.EscapeString(title), " | ", s.Host, "</title>\n")
	if s.Shape.Feed != FeedNone && !s.Shape.Unlinked {
		b.str("<link rel=\"alternate\" type=\"", feedType(s.Shape.Feed), "\" title=\"", s.Host, "\" href=\"", FeedPath(s.Shape.Feed), "\">\n")
	}
}

func (s Site) writeHeadClose(b *docWriter) {
	b.str("</head>\n<body>\n<header><nav><a href=\"/\">", s.Host, "</a></nav></header>\n")
}

const foot = "<footer><p>Written by hand, served by a small server.</p></footer>\n</body></html>\n"

// home is the homepage: the newest posts.
func (s Site) home() string {
	if s.farm.cfg.Sizes == SizesReal {
		return s.realHome()
	}
	var b strings.Builder
	s.head(&b, "Home", "")
	b.WriteString("<main>" + s.homeList(false) + "</main>\n" + foot)
	return b.String()
}

// homeList is the homepage's list of the newest posts, with their
// summaries if excerpts is set.
func (s Site) homeList(excerpts bool) string {
	b := getWriter()
	defer putWriter(b)
	s.writeHomeList(b, excerpts)
	return b.String()
}

// writeHomeList writes homeList(excerpts) to b.
func (s Site) writeHomeList(b *docWriter, excerpts bool) {
	b.WriteString("<ul class=\"posts\">\n")
	for n := s.Posts; n > max(0, s.Posts-s.farm.cfg.PageSize); n-- {
		p := s.Post(n)
		b.str("<li><a href=\"", p.Path, "\">", html.EscapeString(p.Title), "</a> <time datetime=\"")
		b.time(p.Published, time.RFC3339)
		b.WriteString("\">")
		b.time(p.Published, "2 January 2006")
		b.WriteString("</time>")
		if excerpts {
			b.WriteString("<p class=\"excerpt\">")
			b.prose(p.seed^0x5a5a, 30, true) // summary(p)
			b.WriteString("</p>")
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul>")
}

// page is post p's page (a client-rendered shell for a Shell site).
func (s Site) page(p Post) string {
	if s.Shape.Shell {
		return fmt.Sprintf("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s | %s</title>\n"+
			"<script type=\"module\" src=\"/static/app.%x.js\"></script></head>\n"+
			"<body><div id=\"root\"></div><noscript>This site needs JavaScript.</noscript></body></html>\n",
			html.EscapeString(p.Title), s.Host, p.seed%0xffff)
	}
	if s.farm.cfg.Sizes == SizesReal {
		return s.realPage(p)
	}
	var b strings.Builder
	extra := fmt.Sprintf("<meta property=\"article:published_time\" content=\"%s\">\n", p.Published.Format(time.RFC3339))
	if p.Noindex {
		extra += "<meta name=\"robots\" content=\"noindex\">\n"
	}
	s.head(&b, p.Title, extra)
	fmt.Fprintf(&b, "<main><article>\n<h1>%s</h1>\n<p class=\"meta\"><time datetime=\"%s\">%s</time></p>\n",
		html.EscapeString(p.Title), p.Published.Format(time.RFC3339), p.Published.Format("2 January 2006"))
	b.WriteString(s.text(p))
	fmt.Fprintf(&b, "<p>See <a href=\"https://cited-%d.example/notes/%d\">as argued elsewhere</a>.</p>\n", p.seed%7, p.seed%97)
	b.WriteString("</article></main>\n" + foot)
	return b.String()
}

// text is a post's whole text, as HTML paragraphs.
func (s Site) text(p Post) string {
	if s.farm.cfg.Sizes == SizesReal {
		return s.realText(p)
	}
	var b strings.Builder
	words := s.farm.cfg.Words
	for i := range 4 {
		b.WriteString("<p>")
		b.WriteString(prose(p.seed*31+uint64(i), words/4+int(p.seed>>(3+i))%9, true))
		b.WriteString("</p>\n")
	}
	return b.String()
}

// writeText writes text(p) to b.
func (s Site) writeText(b *docWriter, p Post) {
	if s.farm.cfg.Sizes == SizesReal {
		s.writeRealText(b, p)
		return
	}
	b.WriteString(s.text(p))
}

func (s Site) summary(p Post) string { return prose(p.seed^0x5a5a, 30, true) }

// writeFeed writes feed page n (from 1) to b.
func (s Site) writeFeed(b *docWriter, n int) {
	entries := s.onPage(n)
	next := ""
	if s.Shape.Catalogue == CatalogueNext && n < s.FeedPages() {
		next = s.feedPageURL(n + 1)
	}
	switch s.Shape.Feed {
	case FeedAtom:
		b.WriteString(s.atom(entries, next))
	case FeedJSON:
		s.writeJSONFeed(b, entries, next)
	default:
		s.writeRSS(b, entries, next)
	}
}

func newest(entries []Post) time.Time {
	var t time.Time
	for _, p := range entries {
		if p.Published.After(t) {
			t = p.Published
		}
	}
	return t
}

// writeRSS writes an RSS feed page of entries to b, linking to next if
// set.
func (s Site) writeRSS(b *docWriter, entries []Post, next string) {
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">\n<channel>\n")
	b.str("<title>", s.Host, "</title>\n<link>", s.URL("/"), "</link>\n<description>Posts from ", s.Host, "</description>\n<atom:link rel=\"self\" href=\"", s.FeedURL(), "\"/>\n")
	if next != "" {
		b.str("<atom:link rel=\"next\" href=\"", next, "\"/>\n")
	}
	if t := newest(entries); !t.IsZero() {
		b.WriteString("<lastBuildDate>")
		b.time(t, time.RFC1123Z)
		b.WriteString("</lastBuildDate>\n")
	}
	for _, p := range entries {
		u := s.URL(p.Path)
		b.str("<item><title>", html.EscapeString(p.Title), "</title><link>", u, "</link><guid>", u, "</guid><pubDate>")
		b.time(p.Published, time.RFC1123Z)
		b.WriteString("</pubDate>")
		if s.Shape.Full {
			b.WriteString("<content:encoded><![CDATA[")
			s.writeText(b, p)
			b.WriteString("]]></content:encoded>")
		} else {
			b.str("<description>", html.EscapeString(s.summary(p)), "</description>")
		}
		b.WriteString("</item>\n")
	}
	b.WriteString("</channel>\n</rss>\n")
}

func (s Site) atom(entries []Post, next string) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<id>%s</id>\n<link rel=\"alternate\" href=\"%s\"/>\n<link rel=\"self\" href=\"%s\"/>\n",
		s.Host, s.URL("/"), s.URL("/"), s.FeedURL())
	if next != "" {
		fmt.Fprintf(&b, "<link rel=\"next\" href=\"%s\"/>\n", next)
	}
	fmt.Fprintf(&b, "<updated>%s</updated>\n", newest(entries).Format(time.RFC3339))
	for _, p := range entries {
		fmt.Fprintf(&b, "<entry><title>%s</title><id>%s</id><link rel=\"alternate\" href=\"%s\"/><published>%s</published><updated>%s</updated>",
			html.EscapeString(p.Title), s.URL(p.Path), s.URL(p.Path), p.Published.Format(time.RFC3339), p.Published.Format(time.RFC3339))
		if s.Shape.Full {
			fmt.Fprintf(&b, "<content type=\"html\">%s</content>", html.EscapeString(s.text(p)))
		} else {
			fmt.Fprintf(&b, "<summary>%s</summary>", html.EscapeString(s.summary(p)))
		}
		b.WriteString("</entry>\n")
	}
	b.WriteString("</feed>\n")
	return b.String()
}

// writeJSONFeed writes a JSON Feed page of entries to b, linking to next
// if set: what json.Marshal wrote for the struct the farm first built it
// as (version, title, home_page_url, feed_url, next_url if set, items of
// id, url, title, content_html or summary, date_published), field by
// field, without each full text becoming a string and then an escaped
// copy.
func (s Site) writeJSONFeed(b *docWriter, entries []Post, next string) {
	field := func(name, v string) {
		b.str(",\"", name, "\":")
		b.buf = appendJSONString(b.buf, v)
	}
	b.WriteString("{\"version\":")
	b.buf = appendJSONString(b.buf, "https://jsonfeed.org/version/1.1")
	field("title", s.Host)
	field("home_page_url", s.URL("/"))
	field("feed_url", s.FeedURL())
	if next != "" {
		field("next_url", next)
	}
	if len(entries) == 0 {
		b.WriteString(",\"items\":null}\n")
		return
	}
	b.WriteString(",\"items\":[")
	var text *docWriter
	if s.Shape.Full {
		text = getWriter()
		defer putWriter(text)
	}
	for i, p := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		u := s.URL(p.Path)
		b.WriteString("{\"id\":")
		b.buf = appendJSONString(b.buf, u)
		field("url", u)
		field("title", p.Title)
		if s.Shape.Full {
			text.buf = text.buf[:0]
			s.writeText(text, p)
			if text.Len() > 0 { // omitempty
				b.WriteString(",\"content_html\":")
				b.buf = appendJSONString(b.buf, text.buf)
			}
		} else if sum := s.summary(p); sum != "" {
			field("summary", sum)
		}
		b.WriteString(",\"date_published\":\"")
		b.time(p.Published, time.RFC3339)
		b.WriteString("\"}")
	}
	b.WriteString("]}\n")
}

// appendJSONString appends v as encoding/json writes a string: quoted,
// with <, > and & escaped for HTML. Printable ASCII and newlines, all a
// farm's documents hold, are escaped here; anything else goes through
// json.Marshal.
func appendJSONString[T string | []byte](dst []byte, v T) []byte {
	start := len(dst)
	dst = append(dst, '"')
	last := 0 // v[last:i] is yet to be appended
	for i := 0; i < len(v); i++ {
		var esc string
		switch c := v[i]; {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '<':
			esc = `\u003c`
		case c == '>':
			esc = `\u003e`
		case c == '&':
			esc = `\u0026`
		case c < ' ' || c > '~':
			out, err := json.Marshal(string(v))
			if err != nil {
				panic(err) // a string: cannot fail
			}
			return append(dst[:start], out...)
		default:
			continue
		}
		dst = append(dst, v[last:i]...)
		dst = append(dst, esc...)
		last = i + 1
	}
	dst = append(dst, v[last:]...)
	return append(dst, '"')
}

// years lists the years the site published in, oldest first, with the
// newest post of each.
func (s Site) years() (years []int, newestIn map[int]time.Time) {
	newestIn = map[int]time.Time{}
	for n := 1; n <= s.Posts; n++ {
		t := s.published(n)
		y := t.Year()
		if _, ok := newestIn[y]; !ok {
			years = append(years, y)
		}
		newestIn[y] = t
	}
	return years, newestIn
}

// urlset lists the posts published in year (0: every year).
func (s Site) urlset(year int) string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for n := s.Posts; n >= 1; n-- {
		p := s.Post(n)
		if year != 0 && p.Published.Year() != year {
			continue
		}
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>%s</lastmod></url>\n", s.URL(p.Path), p.Published.Format(time.RFC3339))
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func (s Site) sitemapIndex() string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	years, newestIn := s.years()
	for _, y := range years {
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc><lastmod>%s</lastmod></sitemap>\n", s.URL(yearPath(y)), newestIn[y].Format(time.RFC3339))
	}
	b.WriteString("</sitemapindex>\n")
	return b.String()
}

func yearPath(y int) string { return "/sitemap-posts-" + strconv.Itoa(y) + ".xml" }

// Words is the vocabulary of the simulated web's generated text, the
// demo's posts and the farm's alike: varied enough that pages compress
// about as well as real prose, not a thousandfold.
var Words = strings.Fields(`the a of and to in is that it for on with as was by this be are from at or an
have not but which one all were they their there been has more when will would can who out about so up if
what some into its time only new other could very after two may first also any these like than then now
crawler feed sitemap page server request blog post archive robots budget polite cache header date index
garden kettle river lantern orchard meadow copper harbour thistle bramble willow cedar granite pebble
morning evening winter summer autumn spring journey letter market village bridge window library notebook
quietly slowly briefly clearly simply gently nearly rarely often always never perhaps maybe indeed
build measure compare write read walk fetch parse store change publish remove update notice wonder`)

// prose is n words of deterministic text for seed, capitalised; in
// sentences when sentences is set.
func prose(seed uint64, n int, sentences bool) string {
	var buf [1024]byte // a title or a summary fits, with appendProse's room to spare
	return string(appendProse(buf[:0], seed, n, sentences))
}
