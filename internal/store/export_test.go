package store

// SetMaxUnreachable lowers the bound of stateExpr's list of sites, so that
// the suite runs the path taken past it too.
func SetMaxUnreachable(d *SiteData, n int) { d.maxUnreachable = n }
