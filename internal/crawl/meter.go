package crawl

import "time"

// Meter is told of the crawl's own events as they happen, for the
// metrics (internal/app wires *metrics.Metrics here); the fetcher's
// requests reach them through the fetcher's records instead.
type Meter interface {
	SiteStarted()                 // the frontier took a site up
	SiteDone()                    // ... and is done with it for now
	RoundDone(took time.Duration) // a round of due work is over
	RetryScheduled(kind string)   // an item of kind (RetryKinds) is owed a retry
}

// The kinds of item a retry is scheduled for.
const (
	retryPage      = "page"
	retryFeed      = "feed"
	retrySitemap   = "sitemap"
	retryCatalogue = "catalogue" // a page of a feed's archive
	retryDiscovery = "discovery" // a source's feed or sitemap discovery
)

// RetryKinds lists the kinds Meter.RetryScheduled is told of.
func RetryKinds() []string {
	return []string{retryPage, retryFeed, retrySitemap, retryCatalogue, retryDiscovery}
}

// noMeter is the Meter of a Crawler given none.
type noMeter struct{}

func (noMeter) SiteStarted()            {}
func (noMeter) SiteDone()               {}
func (noMeter) RoundDone(time.Duration) {}
func (noMeter) RetryScheduled(string)   {}
