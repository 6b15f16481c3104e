package crawl

import (
	"net/url"

	"corpus.blog/corpusbot/internal/extract"
)

// Extractor turns a page body into an extract.Page; contentType is the response's
// Content-Type header (its charset decides the decoding); agent is the
// product token that meta tags addressed to us by name are matched against.
// It is a field of Crawler so that tests can substitute one; the default is
// extract.ParseResponse.
type Extractor func(body []byte, pageURL *url.URL, contentType, agent string) (extract.Page, error)

// DefaultExtractor is extract.ParseResponse: what the crawler does with a
// fetched page body, and what `corpusbot page parse` runs.
func DefaultExtractor(body []byte, pageURL *url.URL, contentType, agent string) (extract.Page, error) {
	return extract.ParseResponse(body, pageURL, contentType, agent)
}
