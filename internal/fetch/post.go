package fetch

import (
	"context"
	"fmt"

	"corpus.blog/corpusbot/internal/model"
)

// post sends a model.PurposeWebSub request: one POST of req.Form to a WebSub
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
func (f *Fetcher) post(ctx context.Context, a *attempt) Result {
	if a.purpose != model.PurposeWebSub || a.form == nil {
		return Result{Outcome: model.OutcomeError, FinalURL: a.shown, FinalSite: a.site,
			Err: fmt.Errorf("fetch %s: a POST is only for %s, with a form", a.shown, model.PurposeWebSub)}
	}
	ex := f.send(ctx, a)
	res := resultOf(a, ex)
	if ex.location != nil {
		res.Outcome = model.OutcomeStatus
		res.Err = fmt.Errorf("fetch %s: hub redirected to %s: %w", a.shown, ex.location, &StatusError{Code: ex.status})
	}
	return res
}
