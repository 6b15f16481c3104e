package extract

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
)

// MaxBytes is how much of a page is read; the fetcher caps bodies at the
// same size, so this only bounds callers that do not.
const MaxBytes = 5 << 20

// Page is what the crawler keeps of one fetched HTML page. Every metadata
// field is what the page states; one it does not state is empty.
type Page struct {
	Title       string
	Text        string    // the article's plain text, kept privately by the crawler; "" when Noindex or Shell
	Markdown    string    // the same text as Markdown: headings, list items (ordered, nested), quotes and code blocks marked, the rest escaped; "" when Text is
	Published   time.Time // from article metadata (JSON-LD datePublished, article:published_time, Parse.ly, <time datetime>) if present; zero otherwise
	Modified    time.Time // JSON-LD dateModified, article:modified_time, og:updated_time, itemprop dateModified; zero otherwise
	Author      string    // JSON-LD author, meta author, Parse.ly, dc.creator, itemprop or rel=author, a byline; names joined with ", "
	Language    string    // ISO 639-1: the declared language (html lang, Content-Language…) unless the text is plainly in another; detected when none is declared
	Description string    // meta description, og:description, JSON-LD description
	SiteName    string    // og:site_name, JSON-LD publisher
	Tags        []string  // article:tag, JSON-LD keywords, Parse.ly tags; never nil
	License     string    // rel=license, JSON-LD license: an absolute http(s) URL
	Image       string    // og:image, JSON-LD image, twitter:image: an absolute http(s) URL
	Links       []string  // citations: absolute http(s) links out of the article body (not nav/footer/sidebar), resolved against <base href> then the page URL, fragments removed, deduplicated, in document order; nil when Nofollow
	Noindex     bool      // meta robots or meta corpusbot (case-insensitive name) says noindex or none
	Nofollow    bool      // ... nofollow or none
	Shell       bool      // the page renders only in a browser: an empty app root (<div id="root"></div>, id="app", id="__next", ng-app…), script bundles, next to no text
	Canonical   string    // the URL <link rel="canonical"> names, resolved; "" when none
}

// Parse reads an HTML page fetched from pageURL whose response gave no
// Content-Type; it is ParseResponse with contentType "".
func Parse(body []byte, pageURL *url.URL, agent string) (Page, error) {
	return ParseResponse(body, pageURL, "", agent)
}

// ParseResponse reads an HTML page fetched from pageURL. contentType is the
// response's Content-Type header, whose charset parameter decides the
// encoding after a BOM, as in a browser. agent is the crawler's product
// token ("CorpusBot"), matched case-insensitively against
// <meta name="..."> for agent-specific directives.
func ParseResponse(body []byte, pageURL *url.URL, contentType, agent string) (Page, error) {
	if pageURL == nil {
		return Page{}, errors.New("extract: no page URL")
	}
	// The parse tree's nodes go back to the parser's pool when this
	// returns, after readability (which reads the tree, and copies it) and
	// everything else is done with them: Page holds strings only.
	var nodes html.NodeRecycler
	defer nodes.Recycle()
	doc, err := parseHTML(body, contentType, &nodes)
	if err != nil {
		return Page{}, fmt.Errorf("extract %s: %w", pageURL.Redacted(), err)
	}

	// Everything that needs the page as served is read, in one walk,
	// before readability, which rearranges the tree it is given.
	f := readFacts(doc, agent)
	p := Page{Noindex: f.noindex, Nofollow: f.nofollow, Shell: f.shell(doc)}
	base := pageURL
	if f.hasBase {
		base = resolveBase(pageURL, f.base)
	}
	// The first canonical link that gives an http(s) URL, as search
	// engines read it. Only <link> elements count: an <a rel="canonical">
	// in a post's body says nothing about the page.
	for _, href := range f.canonicals {
		if p.Canonical = resolveHTTP(base, href); p.Canonical != "" {
			break
		}
	}
	ld := readJSONLD(f.jsonLD)
	for _, n := range f.skipLinks {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	for _, n := range f.embeds {
		hoist(n)
	}
	for _, n := range f.chrome {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}

	parser := readability.NewParser()
	parser.KeepClasses = true // class names are what prune reads (captions, share bars, author boxes)
	// Nothing here reads the article's image or video URLs (only whether
	// an element has a src, which stays as it is): they need not be made
	// absolute.
	parser.KeepMediaURLs = true
	// Its default logger formats every record (a node's preview, the pass
	// number) and throws the result away; a handler that is never enabled
	// skips that work.
	parser.Logger = slog.New(slog.DiscardHandler)
	// The copies of the document readability makes go back to its pools
	// when this returns: Page holds strings only, and no node of the parse
	// is kept past here.
	defer parser.Recycle()
	article, err := parser.ParseAndMutate(doc, base)
	if err != nil {
		return Page{}, fmt.Errorf("extract %s: readability: %w", pageURL.Redacted(), err)
	}
	p.Title = clean(article.Title())
	declared := p.metadata(f, ld, base, readabilityFacts{byline: article.Byline(), siteName: article.SiteName()})
	if p.Published.IsZero() {
		p.Published = firstTime(article.Node)
	}
	drop := prunedUnder(article.Node, pageURL.Hostname())
	if ld.live {
		drop = prunedLive
	}
	r, hrefs := renderText(article.Node, drop)
	if r.text == "" && !ld.live {
		// Nothing but entries and teasers (a listing readability took
		// whole): better all of it than nothing.
		r, hrefs = renderText(article.Node, prunedLive)
	}
	self := []string{pageURL.String(), p.Canonical}
	normal := normalise(strings.ToValidUTF8(r.text, "\uFFFD"))
	text := withoutSelf(normal, self...)
	if !p.Nofollow {
		p.Links = citations(hrefs, base, pageURL)
	}
	if p.Shell {
		// A page that renders in the browser may still carry its article
		// in its own data; then it is a page like any other.
		if data := shellText(ld.body, f); data.text != "" {
			normal = normalise(strings.ToValidUTF8(data.text, "\uFFFD"))
			p.Shell, text = false, normal
			r, self = data, nil
		} else {
			text = ""
		}
	}
	p.Language = detectLanguage(declared, text)
	if !p.Noindex && !p.Shell {
		p.Text = text
		if text != "" {
			p.Markdown = r.markdown(normal, text != normal, self...)
		}
	}
	return p, nil
}
