package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// ClaimFiles reads site owners' claim files for the public site (its
// web.ClaimFetcher) through the crawler's one polite fetcher: robots.txt,
// the site's pace and the address guard apply as to any request.
type ClaimFiles struct {
	Fetcher Fetcher
	Max     int // bytes kept of a file (web.MaxClaimFile)
}

// FetchClaimFile returns the body of a 200 answer for rawURL, cut to Max;
// any other outcome is an error short enough to show to the owner.
func (c ClaimFiles) FetchClaimFile(ctx context.Context, rawURL string) ([]byte, error) {
	res := c.Fetcher.Fetch(ctx, fetch.Request{URL: rawURL, Purpose: model.PurposeClaim})
	var de *fetch.DisallowedError
	switch {
	case len(res.Redirects) > 0 && res.FinalSite != res.Site:
		// The file proves control of the site that serves it, not of one
		// that points elsewhere.
		return nil, fmt.Errorf("redirected to another site (%s)", res.FinalSite)
	case res.Outcome == model.OutcomeFetched && (res.Status == 0 || res.Status == http.StatusOK):
		if c.Max > 0 && len(res.Body) > c.Max {
			return res.Body[:c.Max], nil
		}
		return res.Body, nil
	case errors.As(res.Err, &de):
		return nil, errors.New("disallowed by robots.txt")
	case res.Outcome == model.OutcomeStatus || res.Status != 0:
		return nil, fmt.Errorf("%d %s", res.Status, http.StatusText(res.Status))
	case res.Outcome == model.OutcomeRefused:
		return nil, errors.New("the site refuses us (403 three times)")
	case res.Err != nil:
		return nil, fmt.Errorf("not read: %w", res.Err)
	}
	return nil, fmt.Errorf("not read (%s)", res.Outcome)
}
