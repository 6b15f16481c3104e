package crawl

import (
	"net/url"

	"corpus.blog/corpusbot/internal/extract"
)

// Page is what text extraction gives for one HTML page.
type Page = extract.Page

// Extractor turns a page body into a Page; agent is the product token that
// meta tags addressed to us by name are matched against. It is a field of
// Crawler so that tests can substitute one; the default is extract.Parse.
type Extractor func(body []byte, pageURL *url.URL, agent string) (Page, error)

// DefaultExtractor is extract.Parse.
func DefaultExtractor(body []byte, pageURL *url.URL, agent string) (Page, error) {
	return extract.Parse(body, pageURL, agent)
}
