package store

// SetMaxUnreachable lowers the bound of stateExpr's list of sites, so that
// the suite runs the path taken past it too.
func SetMaxUnreachable(d *SiteData, n int) { d.maxUnreachable = n }

// Remembered is how many sites' standings the refusal list's memory holds.
func (r *Refusals) Remembered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.mem)
}
