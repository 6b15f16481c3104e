package store

import (
	"strings"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// The model's states as SQL string literals, for the queries that test a
// row's state: a query spells a state through these, never by hand, so
// that the words the store writes and the ones it reads are the model's
// (and, for an origin's robots.txt standing, package robots'; for a
// request's outcome, package fetch's). TestSQLSpellsNoState holds the
// store's queries to it.
const (
	sqlFeedActive     = `'` + model.FeedActive + `'`
	sqlFeedDisallowed = `'` + model.FeedDisallowed + `'`
	sqlFeedError      = `'` + model.FeedError + `'`

	sqlCataloguePending = `'` + model.CataloguePending + `'`
	sqlCatalogueDone    = `'` + model.CatalogueDone + `'`
	// sqlCatalogueUnfinished lists the states of a catalogue walk not
	// finished: not started, under way, or interrupted.
	sqlCatalogueUnfinished = `('` + model.CatalogueNone + `', '` + model.CataloguePending + `', '` + model.CatalogueInterrupted + `')`

	sqlSitemapError   = `'` + model.SitemapError + `'`
	sqlSitemapSkipped = `'` + model.SitemapSkipped + `'`

	sqlPostIndexed    = `'` + model.PostIndexed + `'`
	sqlPostError      = `'` + model.PostError + `'`
	sqlPostPending    = `'` + model.PostPending + `'`
	sqlPostRemoved    = `'` + model.PostRemoved + `'`
	sqlPostDisallowed = `'` + model.PostDisallowed + `'`

	sqlTextFromPage = `'` + model.TextFromPage + `'`

	sqlSubscriptionActive = `'` + model.SubscriptionActive + `'`
	// sqlSubscriptionsLive lists the states of a subscription that a hub
	// may still act on: one to undo when its source is paused.
	sqlSubscriptionsLive = `('` + model.SubscriptionActive + `', '` + model.SubscriptionRequested + `', '` + model.SubscriptionWanted + `')`

	// sqlRobotsUnreachable lists the robots.txt standings of an origin
	// whose file cannot be read now: crawling there is paused.
	sqlRobotsUnreachable = `('` + string(robots.StateUnreachable) + `', '` + string(robots.StateStaleCopy) + `')`

	// sqlOutcomesFailed lists the outcomes of a request sent that got no
	// usable answer: an error status, or none at all.
	sqlOutcomesFailed = `('` + string(model.OutcomeError) + `', '` + string(model.OutcomeStatus) + `')`
)

// withheld lists the outcomes of records where no connection was made
// (model.Outcome.Declined: robots.txt said no, the site is on the 403
// refusal list or its owner opted out, or its next permitted request was
// beyond the caller's horizon). They are what the crawler did not ask,
// never requests.
var withheld = declinedOutcomes()

func declinedOutcomes() string {
	var words []string
	for _, o := range model.Outcomes() {
		if o.Declined() {
			words = append(words, `'`+string(o)+`'`)
		}
	}
	return "(" + strings.Join(words, ", ") + ")"
}
