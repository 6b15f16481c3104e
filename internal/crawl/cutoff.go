package crawl

import (
	"context"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// Work cut off by a stop. When the crawl's context ends (SIGINT), no new
// request begins (the fetcher declines it) but an answer already had is
// recorded as if the stop had come a moment later: a page, feed, catalogue
// page, sitemap or homepage read whole is stored with its validators, so
// that the next run asks it conditionally (or not at all) instead of again
// in full. Each job fetches under the crawl's context and records under
// saving's; nothing that can send a request is ever given the latter.

// answered reports whether res is the site's answer (a body read whole, a
// 304, another status, a body refused by its type or size): what it says
// is recorded whatever happened to the context since. A fetch that got no
// answer (declined, failed, or cut off by the stop) is not.
func answered(res fetch.Result) bool {
	switch res.Outcome {
	case model.OutcomeFetched, model.OutcomeUnchanged, model.OutcomeStatus, model.OutcomeWrongType, model.OutcomeTooLarge:
		return true
	}
	return false
}

// cutOff reports whether the fetch that gave res is to be left unrecorded
// because the job's context ended before it had an answer: the item stays
// as it was, due again.
func cutOff(ctx context.Context, res fetch.Result) bool {
	return ctx.Err() != nil && !answered(res)
}

// saving is the context under which a job records what an answer taught:
// ctx's values, unaffected by its end for fetch.StopGrace, so that a stop
// arriving while a store write is under way (or before it begins) does not
// throw the answer away, nor wait for ever on a store that hangs. The
// caller must call the cancel func. Never fetch with it: a request begun
// under it would be one begun after the stop.
func saving(ctx context.Context) (context.Context, context.CancelFunc) {
	return fetch.Outlive(ctx, fetch.StopGrace)
}
