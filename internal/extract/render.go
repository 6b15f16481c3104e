package extract

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// blockTags start a new block of text. Paragraphs, headings, list items,
// quotes and preformatted text are each a block; a container's own loose
// text is one too.
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "center": true, "dd": true,
	"details": true, "dialog": true, "div": true, "dl": true, "dt": true, "fieldset": true,
	"figcaption": true, "figure": true, "footer": true, "form": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "header": true, "hgroup": true, "hr": true, "li": true,
	"main": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true, "summary": true,
	"table": true, "tbody": true, "thead": true, "tfoot": true, "tr": true, "ul": true, "caption": true,
	"menu": true, "legend": true,
}

// silentTags hold no text a reader reads as part of the article.
var silentTags = map[string]bool{
	"head": true, "meta": true, "style": true, "script": true, "noscript": true, "template": true,
	"iframe": true, "audio": true, "video": true, "track": true, "source": true, "canvas": true,
	"svg": true, "map": true, "area": true, "object": true, "embed": true, "button": true,
	"select": true, "input": true, "textarea": true, "option": true,
}

// textBuilder collects blocks of text: words within a block joined by one
// space, blocks joined by one blank line.
type textBuilder struct {
	// parts are the text written: the blocks kept and the blank lines
	// between them, joined once, at their total size (size), at the end;
	// a builder grown block by block allocates twice the text, in copies.
	parts []string
	size  int
	// block is the block being written; its bytes are reused from one
	// block to the next, and each kept block is copied once, into parts.
	block []byte
	space bool // a space is owed before the next word of the block
	// links are the hrefs of the blocks kept; blockLinks those of the
	// block being written, kept or dropped with it.
	links, blockLinks []string
	inLink            int  // depth of <a> elements around the text being written
	linked            int  // bytes of the block's text inside links
	heading           bool // the block is a heading
	// nest is the containers (quotes, lists, items, headings) around the
	// block being written; marks the blocks kept, for the Markdown form.
	nest  []container
	marks []mark
	// prefix and contPrefix are scratch for markBlock's prefixes.
	prefix, contPrefix []byte
}

func (t *textBuilder) word(w string) {
	if t.space && len(t.block) > 0 && !t.atLineStart() {
		t.block = append(t.block, ' ')
	}
	t.space = false
	t.block = append(t.block, w...)
	if t.inLink > 0 {
		t.linked += len(w)
	}
}

// text adds running text, white space collapsed.
func (t *textBuilder) text(s string) {
	start := -1
	for i := 0; i < len(s); {
		// ASCII, nearly all of most pages, without decoding.
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isSpace(r) {
			if start >= 0 {
				t.word(s[start:i])
				start = -1
			}
			t.space = true
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		t.word(s[start:])
	}
}

// isSpace is unicode.IsSpace, with the runes past Latin-1 (every one of a
// page in Chinese, Japanese or Russian) tested against the few that are
// white space rather than looked up in a table.
func isSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || r >= '\t' && r <= '\r'
	}
	switch {
	case r < 0x2000:
		return r == 0x85 || r == 0xA0 || r == 0x1680
	case r <= 0x200A, r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F:
		return true
	}
	return r == 0x3000
}

// lineBreak is a <br>: a new line within the block. Two in a row (the
// paragraphs of editors that write no <p>) make a blank line, as between
// blocks; more add nothing.
func (t *textBuilder) lineBreak() {
	if b := t.block; len(b) > 0 && !bytes.HasSuffix(b, []byte("\n\n")) {
		t.block = append(t.block, '\n')
	}
	t.space = false
}

// atLineStart reports whether the block's last line is empty so far.
func (t *textBuilder) atLineStart() bool {
	b := t.block
	return len(b) > 0 && b[len(b)-1] == '\n'
}

// pre adds preformatted text as it stands, as a block of its own.
func (t *textBuilder) pre(s string) {
	t.end()
	s = strings.Trim(s, "\n")
	if strings.TrimSpace(s) == "" {
		return
	}
	start := t.write(strings.TrimRight(s, " \t\n"))
	t.markBlock(start, t.size, true)
}

// end closes the current block.
func (t *textBuilder) end() {
	b := string(bytes.TrimSpace(t.block))
	t.block = t.block[:0]
	t.space = false
	hrefs := t.blockLinks
	t.blockLinks = t.blockLinks[:0]
	linked, heading := t.linked, t.heading
	t.linked, t.heading = 0, false
	if b == "" || (rules&16 != 0 && (boilerBlock(b, heading) || headlineLink(b, linked) || linkCluster(b, linked, len(hrefs)))) {
		return
	}
	t.links = append(t.links, hrefs...)
	start := t.write(b)
	t.markBlock(start, t.size, false)
}

// write adds block b to the text, after a blank line if it is not the
// first, and returns where b starts.
func (t *textBuilder) write(b string) int {
	if t.size > 0 {
		t.parts = append(t.parts, "\n\n")
		t.size += 2
	}
	start := t.size
	t.parts = append(t.parts, b)
	t.size += len(b)
	return start
}

func (t *textBuilder) String() string {
	t.end()
	if len(t.parts) > 1 {
		var out strings.Builder
		out.Grow(t.size)
		for _, p := range t.parts {
			out.WriteString(p)
		}
		t.parts = append(t.parts[:0], out.String())
	}
	if len(t.parts) == 0 {
		return ""
	}
	return t.parts[0]
}

// rendered is the text written, with the marks of its blocks.
func (t *textBuilder) rendered() rendered {
	return rendered{text: t.String(), marks: t.marks}
}

// renderText is the text of the article node, block by block, without
// what pruned says to leave out, and the hrefs of the links in the text
// kept, in document order: a link in a share bar or a "read more" line is
// no citation. The text comes with the marks of its blocks, from which its
// Markdown form is written.
func renderText(n *html.Node, pruned func(*html.Node) bool) (rendered, []string) {
	var t textBuilder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			t.text(n.Data)
			return
		case html.ElementNode:
		default:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
			return
		}
		if silentTags[n.Data] || pruned(n) {
			return
		}
		if n.Data == "span" && n.FirstChild != nil && n.FirstChild != n.LastChild {
			if a := hoverCard(n); a != nil {
				walk(a) // the name, not the card of headlines glued to it
				return
			}
		}
		switch n.Data {
		case "br":
			t.lineBreak()
			return
		case "pre":
			t.pre(rawText(n))
			elements(n, func(a *html.Node) bool {
				if href, ok := attrOK(a, "href"); ok && a.Data == "a" {
					t.links = append(t.links, href)
				}
				return true
			})
			return
		case "td", "th":
			t.space = true
		case "a":
			if href, ok := attrOK(n, "href"); ok {
				t.blockLinks = append(t.blockLinks, href)
			}
			t.inLink++
			defer func() { t.inLink-- }()
		}
		block := blockTags[n.Data]
		if block {
			t.end()
			t.heading = len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
			t.open(n.Data, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if block {
			t.end()
			t.close(n.Data)
		} else if n.Data == "td" || n.Data == "th" {
			t.space = true
		}
	}
	if n != nil {
		walk(n)
	}
	r := t.rendered()
	return r, t.links
}

// rawText is the text under n with its white space as written.
func rawText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && n.Data == "br" {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// pruned reports whether an element of the chosen block is left out of the
// text: what a reader does not see (hidden, aria-hidden, display:none),
// and what is about the article rather than of it (captions and credits,
// bylines and datelines, share bars, related and newsletter blocks, hover
// cards), recognised by the names themes give them, and short lists that
// are mostly links.
func pruned(n *html.Node) bool { return prune(n, true, nil) }

// prunedLive is pruned for a live blog, whose entries are all the article.
func prunedLive(n *html.Node) bool { return prune(n, false, nil) }

// prunedUnder is pruned for the block root: a list of teasers that is
// nearly all of it is a listing, cut to its first entry, not left out.
func prunedUnder(root *html.Node, host string) func(*html.Node) bool {
	l := &listing{root: root, rootLen: -1, host: host}
	return func(n *html.Node) bool { return prune(n, true, l) }
}

// listing knows the block's root and the length of its text (computed
// when first needed).
type listing struct {
	root    *html.Node
	rootLen int
	host    string              // the page's host, for links to the same site
	later   map[*html.Node]bool // the entries after the first of a listing
}

func (l *listing) pageHost() string {
	if l == nil {
		return ""
	}
	return l.host
}

// firstElement is n's first child element named in tags, or n.
func firstElement(n *html.Node, tags map[string]bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && tags[c.Data] {
			return c
		}
	}
	return n
}

// most reports whether n holds most (four fifths) of the root's text.
func (l *listing) most(n *html.Node) bool {
	if l == nil {
		return false
	}
	if l.rootLen < 0 {
		l.rootLen = textLen(l.root, 1<<30)
	}
	return textLen(n, 1<<30)*5 >= l.rootLen*4
}

func prune(n *html.Node, cutEntries bool, l *listing) bool {
	if l != nil && l.later[n] {
		return true
	}
	if rules&1 != 0 && hidden(n) {
		return true
	}
	if rules&2 != 0 && n.Data == "figcaption" {
		return true
	}
	if rules&4 != 0 && boilerplateName(n) {
		return true
	}
	if rules&8 != 0 && (n.Data == "ul" || n.Data == "ol") && linkList(n) {
		return true
	}
	if rules&32 != 0 && cutEntries && (n.Data == "article" && laterEntry(n) || l != nil && laterListEntry(n, l.host)) {
		return true
	}
	if rules&64 != 0 && cutEntries && teaserList(n, l.pageHost()) {
		if !l.most(n) {
			return true
		}
		if !opensWithHeadline(firstElement(n, teaserTags), l.host) {
			return false // a round-up of other sites' pages: the post itself
		}
		// A listing of the site's posts: its first entry is the page's;
		// the others go.
		first := true
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && teaserTags[c.Data] {
				if !first {
					if l.later == nil {
						l.later = map[*html.Node]bool{}
					}
					l.later[c] = true
				}
				first = false
			}
		}
	}
	return false
}

// laterEntry reports whether an <article> follows another <article>
// sibling: readability took a run of posts (a listing, or a post and the
// teasers of others after it) and the page's post is the first.
func laterEntry(n *html.Node) bool {
	for s := n.PrevSibling; s != nil; s = s.PrevSibling {
		if s.Type == html.ElementNode {
			return s.Data == "article"
		}
	}
	return false
}

// rules switches the pruning steps, one bit each (hidden, figcaption,
// names, link lists, block words, later entries, teaser lists); all are on. Kept as bits so that a
// measurement can turn one off and see what it is worth.
const rules = 0xff

// hidden reports whether n is hidden from readers.
func hidden(n *html.Node) bool {
	if hasAttr(n, "hidden") || strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return true
	}
	if st := attr(n, "style"); st != "" {
		st = strings.ToLower(strings.ReplaceAll(st, " ", ""))
		return strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden")
	}
	return false
}

// boilerWords, found in a class or id, name a part of a page that is not
// the article's text. Matched as parts of a name ("post-share-bar",
// "relatedPosts"), so each is distinctive enough not to name content.
var boilerWords = []string{
	"caption", "credit", "byline", "dateline", "share", "sharing", "social", "related", "newsletter",
	"subscribe", "promo", "advert", "sponsor", "rollover", "hovercard",
	"breadcrumb", "author-bio", "author-box", "about-author", "author-info", "author-description",
	"authorbox", "author-card", "cookie", "read-more", "readmore", "recommend", "signup", "sign-up",
	"tags", "tag-list", "meta-data", "post-meta", "entry-meta", "article-meta", "timestamp",
}

// maxBoilerText is the most text an element named as boilerplate may hold
// and still be pruned: a wrapper named "post-share-wrapper" around the
// whole article must not take the article with it.
const maxBoilerText = 400

func boilerplateName(n *html.Node) bool {
	if n.Data == "blockquote" || n.Data == "p" && false {
		return false
	}
	// The class and the id are searched apart, not joined: no word holds
	// a space, and most elements' names are lower case already, so this
	// copies nothing.
	class, id := attr(n, "class"), attr(n, "id")
	if strings.TrimSpace(class) == "" && strings.TrimSpace(id) == "" {
		return false
	}
	class, id = strings.ToLower(class), strings.ToLower(id)
	for _, w := range boilerWords {
		if strings.Contains(class, w) || strings.Contains(id, w) {
			return textLen(n, maxBoilerText+1) <= maxBoilerText
		}
	}
	return false
}

// linkList reports whether a list is short items that are mostly links: a
// "read also" or "more stories" list rather than a list the author wrote.
func linkList(n *html.Node) bool {
	items, total, linked := 0, 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "li" {
			items++
		}
	}
	if items == 0 {
		return false
	}
	var walk func(*html.Node, bool)
	walk = func(n *html.Node, inLink bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				l := len(strings.TrimSpace(c.Data))
				total += l
				if inLink {
					linked += l
				}
			case html.ElementNode:
				walk(c, inLink || c.Data == "a")
			}
		}
	}
	walk(n, false)
	return total > 0 && linked*10 >= total*7 && total/items < 100
}

// textLen is the length of the text under n, counting up to limit.
func textLen(n *html.Node, limit int) int {
	total := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && total < limit; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				total += len(strings.TrimSpace(c.Data))
			case html.ElementNode:
				walk(c)
			}
		}
	}
	walk(n)
	return total
}

// withoutSelf is text without the blocks that are only the page's own
// address (a "copy link" field, a print stylesheet's URL line): that is
// not something the author wrote.
func withoutSelf(text string, self ...string) string {
	if !containsAny(text, self) {
		return text
	}
	blocks := strings.Split(text, "\n\n")
	kept := blocks[:0]
	for _, b := range blocks {
		if !slices.Contains(self, b) {
			kept = append(kept, b)
		}
	}
	return strings.Join(kept, "\n\n")
}

// containsAny reports whether text contains one of subs ("" not counted).
func containsAny(text string, subs []string) bool {
	for _, s := range subs {
		if s != "" && strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// Hover cards: an inline element inside a paragraph that holds a link (a
// person's or a topic's name) and, hidden until the pointer is over it, a
// card of more links (the name again, headlines of other stories). Its
// text runs into hundreds of characters glued to the name: "Ilhan
// OmarIlhan OmarHillicon Valley…".
const (
	minHoverText  = 150 // the least text of a card
	minHoverLinks = 3
	maxHoverName  = 60
)

// hoverCard is the first link of n, when n is a hover card: an inline
// element of at least minHoverText bytes, at least minHoverLinks links
// making four fifths of its text or more, opening with a short link. nil
// otherwise.
func hoverCard(n *html.Node) *html.Node {
	var first *html.Node
	links, linked, total := 0, 0, 0
	var walk func(*html.Node, bool) bool
	walk = func(n *html.Node, inLink bool) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				l := len(strings.TrimSpace(c.Data))
				total += l
				if inLink {
					linked += l
				} else if l > 0 && first == nil {
					return false // text before any link: a sentence, not a card
				}
			case html.ElementNode:
				if blockTags[c.Data] {
					return false
				}
				if c.Data == "a" {
					links++
					if first == nil {
						first = c
					}
				}
				if !walk(c, inLink || c.Data == "a") {
					return false
				}
			}
		}
		return true
	}
	if !walk(n, false) || first == nil || links < minHoverLinks || total < minHoverText || linked*5 < total*4 {
		return nil
	}
	if l := textLen(first, maxHoverName+1); l == 0 || l > maxHoverName {
		return nil
	}
	return first
}
