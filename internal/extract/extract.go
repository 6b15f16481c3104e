package extract

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
)

// MaxBytes is how much of a page is read; the fetcher caps bodies at the
// same size, so this only bounds callers that do not.
const MaxBytes = 5 << 20

// Page is what the crawler keeps of one fetched HTML page.
type Page struct {
	Title     string
	Text      string    // the article's plain text, kept privately by the crawler; "" when Noindex or Shell
	Published time.Time // from article metadata (article:published_time, JSON-LD datePublished, <time datetime>) if present; zero otherwise
	Links     []string  // citations: absolute http(s) links out of the article body (not nav/footer/sidebar), resolved against <base href> then the page URL, fragments removed, deduplicated, in document order; nil when Nofollow
	Noindex   bool      // meta robots or meta corpusbot (case-insensitive name) says noindex or none
	Nofollow  bool      // ... nofollow or none
	Shell     bool      // the page renders only in a browser: an empty app root (<div id="root"></div>, id="app", id="__next", ng-app…), script bundles, next to no text
	Canonical string    // the URL <link rel="canonical"> names, resolved; "" when none
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
	doc, err := parseHTML(body, contentType)
	if err != nil {
		return Page{}, fmt.Errorf("extract %s: %w", pageURL.Redacted(), err)
	}

	// Everything that needs the page as served is read before readability,
	// which rearranges the tree it is given.
	var p Page
	p.Noindex, p.Nofollow = metaRobots(doc, agent)
	p.Shell = isShell(doc)
	base := baseURL(doc, pageURL)
	p.Canonical = canonicalLink(doc, base)
	published := publishedBefore(doc)
	pruneSkipLinks(doc)

	parser := readability.NewParser()
	article, err := parser.ParseAndMutate(doc, base)
	if err != nil {
		return Page{}, fmt.Errorf("extract %s: readability: %w", pageURL.Redacted(), err)
	}
	p.Title = clean(article.Title())
	if published.IsZero() {
		published = firstTime(article.Node)
	}
	p.Published = published
	if !p.Nofollow {
		p.Links = citations(article.Node, base, pageURL)
	}
	if !p.Noindex && !p.Shell && article.Node != nil {
		var b strings.Builder
		if err := article.RenderText(&b); err != nil {
			return Page{}, fmt.Errorf("extract %s: text: %w", pageURL.Redacted(), err)
		}
		p.Text = tidyText(b.String())
	}
	return p, nil
}
