package fetch

import (
	"context"
	"fmt"
	"net/url"

	"corpus.blog/corpusbot/internal/model"
)

// post sends a PurposeWebSub request: one POST of req.Form to a WebSub
// hub, under the hub's site lease, through the address guard, with the
// same timeouts, back-off, opt-out check and Record as every request.
//
// robots.txt is not consulted. It governs crawling a site's resources
// (RFC 9309 §2.2.1: "crawlers"); a hub's endpoint is an API the crawler is
// a client of, which the hub's operator publishes for exactly these
// requests (W3C WebSub §5.1: "the subscriber makes a POST request to the
// hub URL"). The opt-out check still applies: a site that opted out gets
// nothing from us, its hub included.
//
// A redirect is not followed: a POST must not turn into a GET on another
// URL (RFC 9110 §15.4), and a hub that moved says so in its feeds.
func (f *Fetcher) post(ctx context.Context, u *url.URL, req Request) Result {
	if req.Purpose != PurposeWebSub || req.Form == nil {
		return Result{Outcome: OutcomeError, FinalURL: u.String(),
			Err: fmt.Errorf("fetch %s: a POST is only for %s, with a form", u, PurposeWebSub)}
	}
	site := model.Site(u.Host)
	if st := f.refusals.Get(ctx, site); !st.mayAsk(f.clock.Now(), f.s.RefusalRecheck) {
		err := fmt.Errorf("fetch %s: %w", u, ErrRefused)
		f.emit(ctx, Record{Site: site, URL: u.String(), Purpose: req.Purpose, Start: f.clock.Now(), Outcome: OutcomeRefused, Err: err})
		return Result{Outcome: OutcomeRefused, FinalURL: u.String(), Err: err}
	}
	ex := f.leased(ctx, site, u, req.Purpose, false, 0, "", "", req.Form)
	res := resultOf(u, ex, Request{URL: req.URL, Purpose: req.Purpose})
	if ex.location != nil {
		res.Outcome = OutcomeStatus
		res.Err = fmt.Errorf("fetch %s: hub redirected to %s: %w", u, ex.location, &StatusError{Code: ex.status})
	}
	return res
}
