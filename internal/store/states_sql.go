package store

import "corpus.blog/corpusbot/internal/model"

// The model's states as SQL string literals, for the queries that test a
// row's state: a query spells a state through these, never by hand, so
// that the words the store writes and the ones it reads are the model's.
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
	sqlPostPending    = `'` + model.PostPending + `'`
	sqlPostRemoved    = `'` + model.PostRemoved + `'`
	sqlPostDisallowed = `'` + model.PostDisallowed + `'`

	sqlTextFromPage = `'` + model.TextFromPage + `'`
)
