package extract

import (
	"strings"

	"golang.org/x/net/html"
)

// facts is everything read from the page as served, in one walk of the
// tree before readability rearranges it: robots directives, base and
// canonical links, the shell test's scripts and mount points, skip links to
// prune, and the metadata the page states.
type facts struct {
	noindex, nofollow bool
	base              string // the first <base href>, as written
	hasBase           bool
	canonicals        []string     // the hrefs of the <link rel=canonical>s, as written (the first few)
	scripts           bool         // an executable <script>
	mounts            []*html.Node // app mount points (the shell test)
	skipLinks         []*html.Node
	embeds            []*html.Node // embedded posts (blockquote.twitter-tweet…), kept with the text
	chrome            []*html.Node // the page's navigation, sidebars and footer, outside any <article> or <main>

	lang      string            // <html lang>
	meta      map[string]string // the first content of each <meta name|property|itemprop|http-equiv>, by lower-case key
	tags      []string          // every article:tag
	jsonLD    []string          // the text of each application/ld+json block (at most maxJSONLD)
	nextData  string            // the text of <script id="__NEXT_DATA__">
	nuxtData  string            // the text of <script id="__NUXT_DATA__"> (Nuxt 3's payload)
	nuxt2     string            // the text of the first inline script that sets window.__NUXT__ (Nuxt 2)
	license   string            // the first rel=license href
	relAuthor string            // the text of the first <a rel=author>
	byline    string            // the text of the first element marked as the byline
	itemprop  map[string]string // the first itemprop datePublished, dateModified, author
	marked    string            // the datetime of a <time> marked as the publication date
	inArticle string            // the datetime of the first <time> inside an <article>
}

// metaKeys are the <meta> names and properties kept; the others are not
// looked at again.
var metaKeys = map[string]bool{
	"article:published_time": true, "article:modified_time": true, "og:updated_time": true,
	"author": true, "article:author": true, "parsely-author": true, "dc.creator": true, "dcterms.creator": true,
	"parsely-pub-date": true, "parsely-tags": true, "parsely-page": true,
	"description": true, "og:description": true, "twitter:description": true,
	"og:site_name": true, "og:image": true, "twitter:image": true, "twitter:image:src": true,
	"content-language": true, "og:locale": true, "dc.language": true,
	// Other names sites give the dates.
	"og:published_time": true, "article:published": true, "datepublished": true, "pubdate": true,
	"publish-date": true, "publish_date": true, "sailthru.date": true, "dc.date": true, "dc.date.issued": true,
	"dcterms.created": true, "dcterms.issued": true, "dcterms.date": true, "date": true,
	"og:modified_time": true, "datemodified": true, "dcterms.modified": true, "dc.date.modified": true,
}

// readFacts walks doc once. agent is the product token for <meta name=agent>.
func readFacts(doc *html.Node, agent string) *facts {
	f := &facts{meta: map[string]string{}, itemprop: map[string]string{}}
	elements(doc, func(n *html.Node) bool {
		if n.Data != "script" && isMount(n) {
			f.mounts = append(f.mounts, n)
		}
		switch n.Data {
		case "html":
			if f.lang == "" {
				f.lang = strings.TrimSpace(attr(n, "lang"))
				if f.lang == "" {
					f.lang = strings.TrimSpace(attr(n, "xml:lang"))
				}
			}
		case "meta":
			f.readMeta(n, agent)
			return false
		case "base":
			if !f.hasBase && hasAttr(n, "href") {
				f.base, f.hasBase = attr(n, "href"), true
			}
			return false
		case "link":
			rel := attr(n, "rel")
			if len(f.canonicals) < 8 && relHas(rel, "canonical") {
				f.canonicals = append(f.canonicals, attr(n, "href"))
			}
			if f.license == "" && relHas(rel, "license") {
				f.license = attr(n, "href")
			}
			return false
		case "script":
			f.readScript(n)
			return false
		case "style":
			return false
		case "a":
			rel := attr(n, "rel")
			if f.license == "" && relHas(rel, "license") {
				f.license = attr(n, "href")
			}
			if f.relAuthor == "" && relHas(rel, "author") {
				f.relAuthor = shortText(n, 200)
			}
			if strings.HasPrefix(attr(n, "href"), "#") &&
				(hasClass(n, "skip-link", "skip-to-content", "skip-main") || lowerHasPrefix(strings.TrimSpace(textOf(n)), "skip to ")) {
				f.skipLinks = append(f.skipLinks, n)
				return false
			}
		case "nav", "aside", "footer":
			if !within(n, "article", "main") {
				f.chrome = append(f.chrome, n) // read on: a footer may hold JSON-LD or a licence
			}
		case "blockquote":
			if hasClass(n, "twitter-tweet", "twitter-video", "bluesky-embed", "mastodon-embed", "threads-embed") {
				f.embeds = append(f.embeds, n)
			}
		case "time":
			dt := attr(n, "datetime")
			if f.marked == "" && (hasAttr(n, "pubdate") || hasClass(n, "published", "entry-date")) {
				f.marked = dt
			}
			if f.inArticle == "" && insideArticle(n) {
				f.inArticle = dt
			}
		}
		if ip := attr(n, "itemprop"); ip != "" {
			f.readItemprop(n, ip)
		}
		if f.byline == "" && isByline(n) {
			f.byline = shortText(n, 200)
		}
		return true
	})
	return f
}

func (f *facts) readMeta(n *html.Node, agent string) {
	name := strings.TrimSpace(attr(n, "name"))
	if strings.EqualFold(name, "robots") || (agent != "" && strings.EqualFold(name, agent)) {
		i, fo := directives(attr(n, "content"))
		f.noindex, f.nofollow = f.noindex || i, f.nofollow || fo
		return
	}
	content := strings.TrimSpace(attr(n, "content"))
	if content == "" {
		return
	}
	for _, k := range []string{"property", "name", "http-equiv", "itemprop"} {
		key := strings.ToLower(strings.TrimSpace(attr(n, k)))
		if key == "" {
			continue
		}
		if key == "article:tag" {
			f.tags = append(f.tags, content)
			return
		}
		if k == "itemprop" {
			f.readItemprop(n, attr(n, k))
			return
		}
		if metaKeys[key] {
			if _, seen := f.meta[key]; !seen {
				f.meta[key] = content
			}
			return
		}
	}
}

func (f *facts) readScript(n *html.Node) {
	if n.FirstChild == nil {
		f.scripts = f.scripts || executable(n)
		return
	}
	t := strings.ToLower(strings.TrimSpace(attr(n, "type")))
	switch {
	case t == "application/ld+json":
		if len(f.jsonLD) < maxJSONLD {
			f.jsonLD = append(f.jsonLD, n.FirstChild.Data)
		}
	case attr(n, "id") == "__NEXT_DATA__":
		f.nextData = n.FirstChild.Data
	case attr(n, "id") == "__NUXT_DATA__":
		f.nuxtData = n.FirstChild.Data
	default:
		f.scripts = f.scripts || executable(n)
		if f.nuxt2 == "" && strings.HasPrefix(strings.TrimSpace(n.FirstChild.Data), "window.__NUXT__") {
			f.nuxt2 = n.FirstChild.Data
		}
	}
}

// readItemprop keeps the first microdata date and author of the page.
func (f *facts) readItemprop(n *html.Node, ip string) {
	for p := range strings.FieldsSeq(ip) {
		switch key := strings.ToLower(p); key {
		case "datepublished", "datemodified":
			if f.itemprop[key] == "" {
				f.itemprop[key] = strOr(attr(n, "content"), attr(n, "datetime"))
			}
		case "author":
			if f.itemprop[key] == "" {
				f.itemprop[key] = strOr(attr(n, "content"), shortText(n, 200))
			}
		}
	}
}

// isByline reports whether n is marked as the article's byline by the
// class names themes use for it.
func isByline(n *html.Node) bool {
	switch n.Data {
	case "span", "div", "p", "a", "address":
	default:
		return false
	}
	for c := range strings.FieldsSeq(attr(n, "class")) {
		switch strings.ToLower(c) {
		case "byline", "author", "author-name", "entry-author", "post-author", "article-author",
			"byline-author", "author-link", "fn":
			return true
		}
	}
	return false
}

// shortText is the collapsed text under n, or "" when it is longer than
// limit bytes (then it is not a name or a label).
func shortText(n *html.Node, limit int) string {
	var b strings.Builder
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
				b.WriteByte(' ')
			case html.ElementNode:
				if c.Data == "script" || c.Data == "style" {
					continue
				}
				if !walk(c) {
					return false
				}
			}
			if b.Len() > 4*limit {
				return false
			}
		}
		return true
	}
	if !walk(n) {
		return ""
	}
	s := clean(b.String())
	if len(s) > limit {
		return ""
	}
	return s
}

// shell applies the rule of the package doc with what the walk found.
func (f *facts) shell(doc *html.Node) bool {
	text := visibleText(doc, ShellMaxText)
	if text >= ShellMaxText {
		return false
	}
	for _, m := range f.mounts {
		if visibleText(m, MountMaxText) < MountMaxText {
			return true
		}
	}
	return f.scripts && text < BareMaxText
}

// within reports whether an ancestor of n is one of the elements tags.
func within(n *html.Node, tags ...string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		for _, t := range tags {
			if p.Type == html.ElementNode && p.Data == t {
				return true
			}
		}
	}
	return false
}
