package crawl

// SetCheckouts has c check the frontier's sites out through s instead of
// its Store, so that an outside test can time and count the checkouts.
func SetCheckouts(c *Crawler, s siteCheckouts) { c.checkouts = s }
