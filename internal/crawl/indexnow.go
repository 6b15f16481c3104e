package crawl

import (
	"context"
	"fmt"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/push"
)

// IndexNowKeys reads IndexNow key files through the crawler's one polite
// fetcher (robots.txt, the site's pace and opt-out, the address guard):
// the public site's web.IndexNowFetcher.
type IndexNowKeys struct{ Fetcher Fetcher }

// FetchKeyFile GETs rawURL and returns at most push.MaxKeyFile bytes of a
// 2xx answer's body and the URL it came from after redirects (the site
// checks that it is still the submitting host).
func (k IndexNowKeys) FetchKeyFile(ctx context.Context, rawURL string) ([]byte, string, error) {
	res := k.Fetcher.Fetch(ctx, fetch.Request{URL: rawURL, Purpose: model.PurposeIndexNow})
	if res.Outcome != model.OutcomeFetched {
		if res.Err != nil {
			return nil, res.FinalURL, res.Err
		}
		return nil, res.FinalURL, fmt.Errorf("key file %s: %s (status %d)", rawURL, res.Outcome, res.Status)
	}
	body := res.Body
	if len(body) > push.MaxKeyFile {
		body = body[:push.MaxKeyFile]
	}
	return body, res.FinalURL, nil
}
